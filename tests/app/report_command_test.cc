// SPDX-License-Identifier: Apache-2.0
#include "app/report_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>

#include "core/error.h"

namespace pipebench {
namespace {

// Parses `words` into a fresh report command and runs its finish(); returns the UsageError or "".
std::string finish_error(const std::vector<std::string>& words) {
  auto command = make_report_command();
  CLI::App app{"report"};
  command->add_options(app);
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  app.parse(reversed);
  try {
    command->finish(app, {});
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportCommand, NameAndNoWorld) {
  const auto c = make_report_command();
  EXPECT_EQ(c->name(), "report");
  EXPECT_FALSE(c->needs_world());
  EXPECT_FALSE(c->summary().empty());
}

TEST(ReportCommand, FlagsAreChecked) {
  EXPECT_EQ(finish_error({"in.json"}), "");
  EXPECT_NE(finish_error({"in.json", "--mad-k", "0"}).find("--mad-k"), std::string::npos);
  EXPECT_NE(finish_error({"in.json", "--mad-k", "nan"}).find("--mad-k"), std::string::npos);
  EXPECT_NE(finish_error({"in.json", "--out", ""}).find("--out"), std::string::npos);
  const std::string rules = "/tmp/pipebench_report_command_test_" + std::to_string(getpid()) + ".json";
  std::ofstream(rules) << R"({"rules": [{"name": "x", "metric": "busbw_gbps", "op": "allreduce", "at_least": 1}]})";
  EXPECT_NE(finish_error({"in.json", "--rules", rules}).find("rule #1 'x': unknown op"), std::string::npos);
  std::remove(rules.c_str());
  EXPECT_NE(finish_error({"in.json", "--rules", "/tmp"}).find("--rules /tmp: not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
