// SPDX-License-Identifier: Apache-2.0
#include "app/flag_table.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "app/help_pages.h"

namespace pipebench {
namespace {

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(FlagTable, RowsAreTheOptionsAsHelpListsThem) {
  CLI::App sub("a toy");
  std::string file, sizes = "32M", format = "text";
  int reps = 10;
  bool quiet = false;
  std::vector<std::string> inputs;
  sub.add_option("input", inputs, "files to read")->required();
  sub.add_option("-b,--minbytes", sizes, "smallest size")->capture_default_str();
  sub.add_option("--reps", reps, "timed batches")->capture_default_str()->check(CLI::Range(1, 99));
  sub.add_option("--format", format, "text | json")->capture_default_str();
  sub.add_option("--json", file, "write it here\nas JSON")->type_name("FILE");
  sub.add_flag("--quiet", quiet, "no progress");
  sub.add_option("--hidden-name", file)->group("");
  EXPECT_EQ(flag_table(sub),
            "| flag | value | default | what it does |\n"
            "|---|---|---|---|\n"
            "| `input` (positional) | `TEXT ...` | required | files to read |\n"
            "| `-b`, `--minbytes` | `TEXT` | `32M` | smallest size |\n"
            "| `--reps` | `INT:INT in [1 - 99]` | `10` | timed batches |\n"
            "| `--format` | `TEXT` | `text` | text \\| json |\n"
            "| `--json` | `FILE` |  | write it here as JSON |\n"
            "| `--quiet` |  |  | no progress |\n");
}

TEST(FlagTable, TheTableGoesBetweenTheMarkersAndNowhereElse) {
  const std::string begin = kFlagTableBegin, end = kFlagTableEnd;
  const std::string page = "# x\n\ntext\n" + begin + "\nold table\n" + end + "\nmore\n";
  EXPECT_EQ(with_flag_table(page, "| new |\n"), "# x\n\ntext\n" + begin + "\n| new |\n" + end + "\nmore\n");
  EXPECT_EQ(with_flag_table(with_flag_table(page, "| a |\n"), "| old |\n"), with_flag_table(page, "| old |\n"));
  EXPECT_THROW((void)with_flag_table("# no markers\n", "| t |\n"), std::runtime_error);
  EXPECT_THROW((void)with_flag_table(end + "\n" + begin + "\n", "| t |\n"), std::runtime_error);
  EXPECT_THROW((void)with_flag_table(page + begin + "\n", "| t |\n"), std::runtime_error);
  // A marker quoted inside a line is no marker.
  EXPECT_THROW((void)with_flag_table("see `" + begin + "`\n" + end + "\n", "| t |\n"), std::runtime_error);
}

TEST(FlagTable, ASubcommandsTableComesFromItsCommandLineDefinition) {
  const std::string bench = command_flag_table("bench");
  EXPECT_NE(bench.find("| `-b`, `--minbytes` | `TEXT` | `32M` | smallest size"), std::string::npos) << bench;
  EXPECT_EQ(bench.find("--nccl-tests-name"), std::string::npos) << "a hidden flag is in the table";
  EXPECT_NE(command_flag_table("plan").find("| `--json` | `FILE` |"), std::string::npos);
  EXPECT_THROW((void)command_flag_table("bnech"), std::runtime_error);
}

// The checked-in tables are what `make flag-tables` writes now: a flag added, renamed or redescribed
// without running it fails here.
TEST(FlagTable, EveryPageHoldsItsCurrentTable) {
  const auto app = std::filesystem::path(TEST_DATA_DIR).parent_path().parent_path() / "src" / "app";
  const std::vector<std::string> names = help_page_names();
  ASSERT_GE(names.size(), 10u);
  for (const auto& name : names) {
    const std::string page = file_text(app / (name + ".md"));
    EXPECT_EQ(page, with_flag_table(page, command_flag_table(name)))
        << "src/app/" << name << ".md: its flag table is stale (make flag-tables writes it)";
  }
}

}  // namespace
}  // namespace pipebench
