// SPDX-License-Identifier: Apache-2.0
#include "app/help_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "app/help_pages.h"
#include "core/error.h"

namespace pipebench {
namespace {

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every subcommand of the table has its page built in, the page as its file holds it, and every page
// built in names a subcommand.
TEST(HelpCommand, EverySubcommandHasItsPageAndEveryPageASubcommand) {
  const auto root = std::filesystem::path(TEST_DATA_DIR).parent_path().parent_path();
  std::vector<std::string> commands;
  for (const auto& c : make_command_table()) {
    commands.push_back(c->name());
    if (c->name() == "help") continue;
    const std::string_view page = help_page(c->name());
    EXPECT_FALSE(page.empty()) << c->name();
    EXPECT_EQ(std::string(page), file_text(root / "src" / "app" / (c->name() + ".md"))) << c->name();
  }
  for (const auto& name : help_page_names()) {
    EXPECT_NE(std::find(commands.begin(), commands.end(), name), commands.end()) << name << ".md names no subcommand";
  }
  EXPECT_TRUE(help_page("nosuch").empty());
}

TEST(HelpCommand, APageByNameTheListWithoutOne) {
  EXPECT_EQ(help_text({"predict"}), std::string(help_page("predict")));
  const std::string list = help_text({});
  EXPECT_NE(list.find("Usage: pipebench help SUBCOMMAND"), std::string::npos) << list;
  for (const auto& name : help_page_names()) EXPECT_NE(list.find(name), std::string::npos) << name;
}

TEST(HelpCommand, AnUnknownNameIsOneLineWithTheNearestOne) {
  try {
    (void)help_text({"replya"});
    FAIL() << "no error for an unknown page";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no subcommand 'replya' (did you mean replay?)"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_THROW((void)help_text({"zzzzzzzz"}), UsageError);
  EXPECT_THROW((void)help_text({"plan", "predict"}), UsageError);
}

}  // namespace
}  // namespace pipebench
