// SPDX-License-Identifier: Apache-2.0
// The generic half of the command line: sets aside --benchmark_* words and what follows "--", lets CLI11
// parse the rest against the options every command of the table added, then hands the words set aside
// to the one command that may take them.
#include "cli/cli.h"

#include <CLI/CLI.hpp>
#include <sstream>

#include "cli/help_formatter.h"
#include "cli/number_checks.h"
#include "cli/parse_errors.h"
#include "core/error.h"

namespace pipebench {
namespace {

bool is_benchmark_flag(const std::string& word) { return word.rfind("--benchmark_", 0) == 0; }

Subcommand* named(const CommandTable& table, const std::vector<std::string>& args) {
  if (args.empty()) return nullptr;
  for (const auto& c : table) {
    if (c->name() == args[0]) return c.get();
  }
  return nullptr;
}

// Splits the words CLI11 parses from the Google Benchmark flags and, for a command that accepts them,
// the words after "--".
std::vector<std::string> set_aside(const CommandTable& table, const std::vector<std::string>& args,
                                   CommandExtras& extras) {
  const Subcommand* first = named(table, args);
  const bool passthrough = first && first->accepts_passthrough();
  std::vector<std::string> words;
  bool after_separator = false;
  for (const auto& a : args) {
    if (passthrough && (after_separator || a == "--")) {
      if (after_separator) extras.passthrough.push_back(a);
      after_separator = true;
      continue;
    }
    (is_benchmark_flag(a) ? extras.benchmark_args : words).push_back(a);
  }
  return words;
}

ParsedLine help(std::string text) {
  ParsedLine line;
  line.help_text = std::move(text);
  return line;
}

}  // namespace

CLI::App* add_command(CLI::App& app, Subcommand& command) {
  CLI::App* sub = app.add_subcommand(command.name(), command.summary());
  command.add_options(*sub);
  if (command.takes_raw_words()) return sub;
  const std::string footer = sub->get_footer();
  sub->footer(footer + (footer.empty() ? "" : "\n\n") + "The whole page, with examples: pipebench help " +
              command.name());
  checks::require_finite_numbers(*sub);  // every numeric flag, with or without its own range
  checks::require_plain_integers(*sub);  // every integer flag: decimal, as the help and pages write them
  return sub;
}

ParsedLine parse_line(const CommandTable& table, const std::vector<std::string>& args) {
  if (Subcommand* command = named(table, args); command && command->takes_raw_words()) {
    std::string text = command->parse_raw_words({args.begin() + 1, args.end()});
    if (!text.empty()) return help(std::move(text));
    return {ParsedLine::Kind::kCommand, {}, command};
  }
  CommandExtras extras;
  const std::vector<std::string> words = set_aside(table, args, extras);

  CLI::App app{"pipebench: communication benchmarks for pipeline-parallel training", "pipebench"};
  use_help_formatter(app);
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version");
  std::vector<std::pair<Subcommand*, CLI::App*>> subs;
  for (const auto& c : table) {
    CLI::App* sub = add_command(app, *c);
    if (!c->takes_raw_words()) subs.emplace_back(c.get(), sub);  // raw words never reach CLI11 (see above)
  }

  if (std::string empty = empty_value_message(app, words); !empty.empty()) throw UsageError(empty);
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    std::ostringstream out, err;
    app.exit(e, out, err);
    return help(out.str());
  } catch (const CLI::ParseError& e) {
    throw UsageError(parse_error_message(app, words, e));
  }
  if (version) return {ParsedLine::Kind::kVersion, {}, nullptr};
  for (auto& [command, sub] : subs) {
    if (!sub->parsed()) continue;
    if (!command->accepts_benchmark_args() && !extras.benchmark_args.empty()) {
      throw UsageError(extras.benchmark_args.front() + ": Google Benchmark flags apply to bench and run only");
    }
    command->finish(*sub, extras);
    return {ParsedLine::Kind::kCommand, {}, command};
  }
  if (!extras.benchmark_args.empty()) {
    throw UsageError(extras.benchmark_args.front() + ": Google Benchmark flags go after a subcommand");
  }
  return help(app.help());
}

}  // namespace pipebench
