// SPDX-License-Identifier: Apache-2.0
#include "app/report_inputs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace pipebench {
namespace {

namespace fs = std::filesystem;

class ReportInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "pipebench_inputs_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string error_of(const std::vector<std::string>& inputs) {
    try {
      (void)load_report_inputs(inputs, "");
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
  std::string dir_;
};

TEST_F(ReportInputsTest, AFolderIsItsJsonFilesSortedWithoutItsReport) {
  fs::create_directories(dir_ + "/run");
  write("run/results.json", "{}");
  write("run/a-topology.json", "{}");
  write("run/report.json", "{}");
  write("run/results.csv", "");
  const auto files = expand_input("INPUT", dir_ + "/run");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]).filename(), "a-topology.json");
  EXPECT_EQ(fs::path(files[1]).filename(), "results.json");
  fs::create_directories(dir_ + "/empty");
  EXPECT_THROW((void)expand_input("INPUT", dir_ + "/empty"), UsageError);
}

TEST_F(ReportInputsTest, BadInputsNameTheFile) {
  EXPECT_NE(error_of({dir_ + "/missing.json"}).find(dir_ + "/missing.json: does not exist"), std::string::npos);
  const auto plan = write("plan.json", R"({"schema": "pipebench.plan/1"})");
  EXPECT_NE(error_of({plan}).find(plan + ": schema 'pipebench.plan/1' is not an input of report"), std::string::npos);
  const auto text = write("notes.json", "not json");
  EXPECT_NE(error_of({text}).find(text + ": not JSON"), std::string::npos);
  const auto bare = write("bare.json", R"({"records": []})");
  EXPECT_NE(error_of({bare}).find(bare + ": not a pipebench file"), std::string::npos);
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(error_of({fifo}).find(fifo + ": not a regular file or folder"), std::string::npos);
  EXPECT_NE(error_of({}).find("no INPUT"), std::string::npos);
}

TEST_F(ReportInputsTest, SchemaOfAPipebenchFile) {
  EXPECT_EQ(schema_of("INPUT", write("t.json", R"({"schema": "pipebench.topology/1"})")), "pipebench.topology/1");
}

}  // namespace
}  // namespace pipebench
