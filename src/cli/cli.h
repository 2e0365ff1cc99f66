// SPDX-License-Identifier: Apache-2.0
// The command line: a list of words and the command table in, the chosen command (its options bound and
// checked) out, or a UsageError naming the flag. Pure (no I/O), so every bad-input rule is unit-tested.
// Knows no command: each one brings its options (core/command.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/command.h"

namespace CLI {
class App;
}

namespace pipebench {

using CommandTable = std::vector<std::unique_ptr<Subcommand>>;

struct ParsedLine {
  enum class Kind { kHelp, kVersion, kCommand };
  Kind kind = Kind::kHelp;
  std::string help_text;          // kHelp: what to print
  Subcommand* command = nullptr;  // kCommand: an entry of the table, finished and ready to run
};

// Adds `command` to `app` as a subcommand as the command line has it: its options, its help's footer
// (pointing to its page) and the checks every numeric flag gets. A command that takes raw words gets its
// options too (for its help and page; its words never reach CLI11) but no footer or checks.
CLI::App* add_command(CLI::App& app, Subcommand& command);

// args: the words after the program name. The table's order is the order of the top-level help.
// Throws UsageError.
[[nodiscard]] ParsedLine parse_line(const CommandTable& table, const std::vector<std::string>& args);

}  // namespace pipebench
