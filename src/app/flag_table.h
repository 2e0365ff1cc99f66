// SPDX-License-Identifier: Apache-2.0
// The flag table of a subcommand's page (src/app/SUB.md): generated from the command's CLI11 definition,
// so the page lists what `pipebench SUB --help` lists, in its words. `make flag-tables` writes each page's
// table between its markers (src/tools/flag_tables.cc); a test fails where a checked-in table is stale.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace pipebench {

// The lines that enclose a page's generated table.
inline constexpr const char* kFlagTableBegin =
    "<!-- flag table: generated from the CLI definition by `make flag-tables`; do not edit -->";
inline constexpr const char* kFlagTableEnd = "<!-- end of flag table -->";

// A Markdown table of the positionals and flags of `sub` as its --help lists them (hidden flags left
// out): | flag | value | default | what it does |. Names, value types, defaults and descriptions are
// CLI11's own; a required one says "required" as its default; "|" in a description is escaped.
[[nodiscard]] std::string flag_table(const CLI::App& sub);

// `page` with the text between its markers (each a line of its own) replaced by `table`. Throws
// std::runtime_error where the markers are missing, repeated or out of order.
[[nodiscard]] std::string with_flag_table(const std::string& page, const std::string& table);

// The flag table of the subcommand `name` as the command line defines it (cli/cli.h add_command).
// Throws std::runtime_error for a name the command table does not have.
[[nodiscard]] std::string command_flag_table(const std::string& name);

}  // namespace pipebench
