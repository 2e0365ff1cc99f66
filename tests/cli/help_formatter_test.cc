// SPDX-License-Identifier: Apache-2.0
#include "cli/help_formatter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pipebench {
namespace {

// One form whatever CLI11 release: a default after "=", a list's "...", REQUIRED; a flag has no column.
TEST(HelpFormatter, TheOptionColumnIsTypeEqualsDefaultInEveryCli11Release) {
  CLI::App app{"t", "t"};
  use_help_formatter(app);
  CLI::App* sub = app.add_subcommand("sub", "a subcommand added after the formatter");
  int iters = 20;
  std::string name;
  std::vector<std::string> inputs;
  bool quiet = false;
  sub->add_option("-n,--iters", iters, "ops")->check(CLI::Range(1, 100))->capture_default_str();
  sub->add_option("--name", name, "a name")->required();
  sub->add_option("inputs", inputs, "files");
  sub->add_flag("--quiet", quiet, "quiet");
  const std::string help = sub->help();
  EXPECT_NE(help.find("  -n,--iters INT:INT in [1 - 100]=20\n"), std::string::npos) << help;
  EXPECT_EQ(help.find("[20]"), std::string::npos) << help;
  EXPECT_NE(help.find("  --name TEXT REQUIRED "), std::string::npos) << help;
  EXPECT_NE(help.find("  inputs TEXT ... "), std::string::npos) << help;
  EXPECT_NE(help.find("  --quiet "), std::string::npos) << help;
}

}  // namespace
}  // namespace pipebench
