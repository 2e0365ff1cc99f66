// SPDX-License-Identifier: Apache-2.0
// src/tools/layer_check.sh (make layer-check) on small trees made here: a tree whose includes go down
// passes, an include up the order (also one half of a cycle) fails with its file, line and folders, a
// source outside the declared folders is refused; and src/README.md states the order the script holds.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path repo_root() { return fs::path(TEST_DATA_DIR).parent_path().parent_path(); }
fs::path script() { return repo_root() / "src" / "tools" / "layer_check.sh"; }

struct CheckRun {
  int status = -1;
  std::string output;
};

CheckRun run_check(const std::string& args) {
  CheckRun r;
  const std::string cmd = "bash '" + script().string() + "' " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.output.append(buf.data(), n);
  const int w = pclose(p);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  return r;
}

class LayerCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::path(::testing::TempDir()) / "layer_check_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    // A clean tree: each include points down core < ... < io < report < app < main.
    write("src/core/units.h", "#pragma once\n#include <string>\n#include \"nlohmann/json.hpp\"\n");
    write("topology/topology.h", "#pragma once\n#include \"core/units.h\"\n");
    write("src/io/results_io.h", "#pragma once\n#include \"core/units.h\"\n#include \"io/json_fields.h\"\n");
    write("src/report/console_table.cc", "#include \"report/console_table.h\"\n#include \"io/results_io.h\"\n");
    write("src/app/bench_command.cc", "#include \"report/console_table.h\"\n#include \"topology/topology.h\"\n");
    write("src/main.cc", "#include \"app/commands.h\"\nint main() { return 0; }\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  CheckRun check() { return run_check("'" + root_.string() + "'"); }

  fs::path root_;
};

TEST_F(LayerCheck, IncludesThatGoDownPass) {
  const CheckRun r = check();
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("layer-check: every include of 6 sources points down"), std::string::npos) << r.output;
}

TEST_F(LayerCheck, AnIncludeUpTheOrderFailsNamingFileLineAndFolders) {
  write("topology/discovery.cc", "#include \"topology/topology.h\"\n\n#include \"backend/cuda_topology.h\"\n");
  const CheckRun r = check();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("topology/discovery.cc:3: topology includes backend (\"backend/cuda_topology.h\"), a "
                          "folder above it\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("layer-check: 1 includes point up"), std::string::npos) << r.output;
}

TEST_F(LayerCheck, ACycleIsCaughtAtItsUpwardHalf) {
  // io -> report and report -> io: report is above io, so io's include is the one named.
  write("src/io/report_io.h", "#pragma once\n#include \"report/report_model.h\"\n");
  write("src/report/report_model.h", "#pragma once\n#include \"io/results_io.h\"\n");
  const CheckRun r = check();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("src/io/report_io.h:2: io includes report"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("src/report/report_model.h:"), std::string::npos) << r.output;
}

TEST_F(LayerCheck, EveryUpwardIncludeGetsItsOwnLine) {
  write("src/core/a.h", "#include \"main.cc\"\n#include \"app/x.h\"\n  #  include \"report/y.h\"\n");
  const CheckRun r = check();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("src/core/a.h:2: core includes app"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("src/core/a.h:3: core includes report"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("layer-check: 2 includes point up"), std::string::npos) << r.output;
}

TEST_F(LayerCheck, ASourceOutsideTheDeclaredFoldersIsRefused) {
  write("src/widgets/w.cc", "#include \"core/units.h\"\n");
  const CheckRun r = check();
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("src/widgets/w.cc: not in a folder of the layer order"), std::string::npos) << r.output;
}

TEST(LayerCheckOrder, TheArchitecturePageStatesTheCheckedOrder) {
  const CheckRun r = run_check("--order");
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_NE(r.output.find("core < cli < launch"), std::string::npos) << r.output;
  std::ifstream in(repo_root() / "src" / "README.md");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("\n" + r.output), std::string::npos) << "src/README.md does not state: " << r.output;
}

// What two commands share is a service below them: a command that includes another command's header fails,
// naming the file, the line and the header; its own header, a service's, and the command table's includes
// of every command pass.
TEST_F(LayerCheck, ACommandIncludingAnotherCommandsHeaderFails) {
  write("src/service/sweep.h", "#pragma once\n#include \"report/console_table.h\"\n");
  write("src/app/commands.cc", "#include \"app/run_command.h\"\n#include \"app/bench_command.h\"\n");
  write("src/app/run_command.cc", "#include \"app/run_command.h\"\n#include \"service/sweep.h\"\n");
  CheckRun r = check();
  EXPECT_EQ(r.status, 0) << r.output;
  write("src/app/run_command.cc",
        "#include \"app/run_command.h\"\n#include \"service/sweep.h\"\n#include \"app/bench_command.h\"\n");
  r = check();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("src/app/run_command.cc:3: a command includes another command's header "
                          "(\"app/bench_command.h\")"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("run_command.cc:1:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("commands.cc"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("layer-check: 1 includes of another command's header"), std::string::npos) << r.output;
}

TEST_F(LayerCheck, AServiceIsBelowTheCommands) {
  write("src/service/sweep.cc", "#include \"app/bench_command.h\"\n");
  const CheckRun r = check();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("src/service/sweep.cc:1: service includes app"), std::string::npos) << r.output;
}

}  // namespace
