// SPDX-License-Identifier: Apache-2.0
#include "app/flag_table.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "app/commands.h"
#include "cli/cli.h"

namespace pipebench {
namespace {

// A table cell: "|" escaped, line breaks as spaces (a row is one line).
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(const std::string& text) { return text.empty() ? std::string() : "`" + text + "`"; }

std::string names(const CLI::Option& opt) {
  if (opt.get_positional()) return code(opt.get_name(true, false)) + " (positional)";
  std::string out;
  for (const auto& s : opt.get_snames()) out += (out.empty() ? "" : ", ") + code("-" + s);
  for (const auto& l : opt.get_lnames()) out += (out.empty() ? "" : ", ") + code("--" + l);
  return out;
}

std::string value(const CLI::Option& opt) {
  if (opt.get_type_size() == 0) return {};  // a flag: no value
  std::string out = opt.get_type_name();
  if (opt.get_expected_max() == CLI::detail::expected_max_vector_size) {
    out += " ...";
  } else if (opt.get_expected_min() > 1) {
    out += " x " + std::to_string(opt.get_expected());
  }
  return code(out);
}

std::string row(const CLI::Option& opt) {
  // As --help: a flag (no value) shows neither a default nor "required".
  const bool takes_value = opt.get_type_size() != 0;
  const std::string fallback = opt.get_required() && takes_value ? "required" : "";
  const std::string default_value =
      opt.get_default_str().empty() || !takes_value ? fallback : code(opt.get_default_str());
  return "| " + names(opt) + " | " + value(opt) + " | " + cell(default_value) + " | " + cell(opt.get_description()) +
         " |\n";
}

std::size_t line_at(const std::string& page, const char* line) {
  const std::string text = line;
  std::size_t found = std::string::npos;
  for (std::size_t at = page.find(text); at != std::string::npos; at = page.find(text, at + 1)) {
    const bool starts_line = at == 0 || page[at - 1] == '\n';
    const std::size_t end = at + text.size();
    if (!starts_line || (end < page.size() && page[end] != '\n')) continue;
    if (found != std::string::npos) throw std::runtime_error(text + ": more than once on the page");
    found = at;
  }
  if (found == std::string::npos) throw std::runtime_error(text + ": not a line of the page");
  return found;
}

}  // namespace

std::string flag_table(const CLI::App& sub) {
  std::string table = "| flag | value | default | what it does |\n|---|---|---|---|\n";
  // Positionals first, then the flags in the order they were added: the order of --help.
  for (const bool positional : {true, false}) {
    for (const CLI::Option* opt : sub.get_options()) {
      if (opt->get_positional() != positional || opt->get_group().empty()) continue;  // group "": hidden
      if (opt == sub.get_help_ptr()) continue;
      table += row(*opt);
    }
  }
  return table;
}

std::string with_flag_table(const std::string& page, const std::string& table) {
  const std::size_t begin = line_at(page, kFlagTableBegin);
  const std::size_t end = line_at(page, kFlagTableEnd);
  if (end < begin) throw std::runtime_error(std::string(kFlagTableEnd) + ": before " + kFlagTableBegin);
  const std::size_t body = begin + std::string(kFlagTableBegin).size() + 1;
  return page.substr(0, body) + table + page.substr(end);
}

std::string command_flag_table(const std::string& name) {
  for (const auto& command : make_command_table()) {
    if (command->name() != name) continue;
    CLI::App app;
    return flag_table(*add_command(app, *command));
  }
  throw std::runtime_error(name + ": no such subcommand");
}

}  // namespace pipebench
