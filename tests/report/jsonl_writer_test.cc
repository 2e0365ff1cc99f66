// SPDX-License-Identifier: Apache-2.0
// --jsonl: one object per record, with where it ran and, where the ranks' link is known, the path's
// theoretical GB/s and the share of it reached (absent where unknown, never 0).
#include "report/jsonl_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/report_fixture.h"

namespace pipebench {
namespace {

namespace fs = std::filesystem;

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(JsonlWriter, EachLineCarriesTheLinkAndItsShareWhereKnown) {
  const std::string path =
      (fs::temp_directory_path() / ("pipebench_jsonl_" + std::to_string(getpid()) + ".jsonl")).string();
  const std::vector<SystemDevice> devices = {{{0, "n0", "0000:18:00.0"}, 11, 0, "NVIDIA H100"},
                                             {{1, "n0", "0000:3b:00.0"}, 11, 1, "NVIDIA H100"}};
  ResultRecord known = testing::make_record("all_gather", 1 << 30, 360);
  known.link_class = "NV18";
  known.path_min_gbps = 450.0;
  ResultRecord unknown = testing::make_record("all_gather", 1 << 20, 12);
  {
    JsonlWriter w(path, RankDirectory(devices));
    w.add(known);
    w.add(unknown);
    w.finish();
  }
  const std::vector<nlohmann::json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].at("host"), "n0");
  EXPECT_EQ(lines[0].at("gpu"), "NVIDIA H100");
  EXPECT_EQ(lines[0].at("link_class"), "NV18");
  EXPECT_DOUBLE_EQ(lines[0].at("path_min_gbps").get<double>(), 450.0);
  EXPECT_DOUBLE_EQ(lines[0].at("pct_of_link").get<double>(), 80.0);
  EXPECT_TRUE(lines[1].at("path_min_gbps").is_null()) << lines[1].dump();
  EXPECT_FALSE(lines[1].contains("pct_of_link")) << lines[1].dump();
  fs::remove(path);
}

// SLURM_JOB_ID holds whatever bytes the environment has; the line stays JSON with U+FFFD for those that are not
// UTF-8, as --json writes them.
TEST(JsonlWriter, AJobIdThatIsNotUtf8IsWrittenAsReplacementCharacters) {
  const std::string path =
      (fs::temp_directory_path() / ("pipebench_jsonl_utf8_" + std::to_string(getpid()) + ".jsonl")).string();
  setenv("SLURM_JOB_ID", "ab\xff", 1);
  {
    JsonlWriter w(path, RankDirectory({}));
    w.add(testing::make_record("all_gather", 1 << 20, 12));
    w.finish();
  }
  unsetenv("SLURM_JOB_ID");
  const std::vector<nlohmann::json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].at("slurm_job_id"), "ab\xEF\xBF\xBD");
  fs::remove(path);
}

// Appending is for JSON Lines records: another file (a results JSON, a text file, a line cut short) is
// refused before a line is written, and is left as it was.
TEST(JsonlWriter, AppendsOnlyToAnEmptyFileOrToJsonLinesRecords) {
  const std::string path =
      (fs::temp_directory_path() / ("pipebench_jsonl_append_" + std::to_string(getpid()) + ".jsonl")).string();
  const auto holding = [&](const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    return path;
  };
  const auto slurp = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::vector<SystemDevice> devices = {{{0, "n0", "0000:18:00.0"}, 11, 0, "NVIDIA H100"}};
  for (const std::string& bytes :
       {std::string("{\n  \"schema\": \"pipebench.results/1\",\n  \"records\": []\n}\n"), std::string("notes\n"),
        std::string("{\"op\": \"all_reduce\"}\n{\"op\": \"all_gat"), std::string("{\"a\": 1}\n[1, 2]\n")}) {
    holding(bytes);
    try {
      JsonlWriter w(path, RankDirectory(devices));
      ADD_FAILURE() << "appended after: " << bytes;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--jsonl " + path + ": ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("appends only to an empty file or to JSON Lines records"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(slurp(), bytes);
  }
  for (const std::string& bytes : {std::string(), std::string("{\"op\": \"all_reduce\"}\n")}) {
    holding(bytes);
    {
      JsonlWriter w(path, RankDirectory(devices));
      w.add(testing::make_record("all_gather", 1 << 20, 12));
      w.finish();
    }
    const std::vector<nlohmann::json> lines = read_lines(path);
    ASSERT_EQ(lines.size(), bytes.empty() ? 1u : 2u);
    EXPECT_EQ(lines.back().at("op"), "all_gather");
  }
  fs::remove(path);
}

}  // namespace
}  // namespace pipebench
