// SPDX-License-Identifier: Apache-2.0
// Reading a refused command line again, word by word, against the options CLI11 was given.
#include "cli/parse_errors.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <optional>

#include "core/suggest.h"
#include "core/terminal_text.h"

namespace pipebench {
namespace {

// "-x..." or "--name[=value]", but not a negative number ("-1.5", which CLI11 also takes as a value).
bool looks_like_flag(const std::string& w) {
  if (w.size() < 2 || w[0] != '-' || w == "--") return false;
  char* end = nullptr;
  (void)std::strtod(w.c_str(), &end);
  return end != w.c_str() + w.size();
}

// The flag's name as CLI11 looks it up: "--name" of "--name=value", "-b" of "-b64K".
std::string flag_name(const std::string& w) {
  if (w.rfind("--", 0) == 0) return w.substr(0, w.find('='));
  return w.substr(0, 2);
}

std::vector<std::string> flag_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const auto& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
  return names;
}

const CLI::App* named_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == word) return s;
  }
  return nullptr;
}

// A switch (--quiet): the next word is not its value. CLI11's add_flag keeps the type size of the bool it
// sets and marks the switch by expecting no value, so both are asked.
bool takes_no_value(const CLI::Option& opt) { return opt.get_type_size() == 0 || opt.get_expected_max() == 0; }

// "pipebench import FORMAT FILE [flags]": the positionals in order.
std::string usage_line(const CLI::App& sub) {
  std::string line = "pipebench " + sub.get_name();
  for (const CLI::Option* o : sub.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    line += " " + o->get_name();
    if (o->get_items_expected_max() > 1) line += "...";
  }
  return line + " [flags]";
}

// The value written into a flag's word: "x" of "--json=x", "64K" of "-b64K"; nullopt when the value is the
// next word.
std::optional<std::string> attached_value(const std::string& w) {
  if (w.rfind("--", 0) == 0) {
    const std::size_t eq = w.find('=');
    return eq == std::string::npos ? std::nullopt : std::optional<std::string>(w.substr(eq + 1));
  }
  return w.size() > 2 ? std::optional<std::string>(w.substr(2)) : std::nullopt;
}

}  // namespace

std::string empty_value_message(const CLI::App& app, const std::vector<std::string>& words) {
  const CLI::App* sub = words.empty() ? nullptr : named_subcommand(app, words[0]);
  if (!sub) return {};
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (!looks_like_flag(words[i])) continue;
    const CLI::Option* opt = sub->get_option_no_throw(flag_name(words[i]));
    if (!opt || takes_no_value(*opt)) continue;  // unknown (reported elsewhere) or a switch
    const std::optional<std::string> attached = attached_value(words[i]);
    const bool empty = attached ? attached->empty() : i + 1 < words.size() && words[i + 1].empty();
    if (empty) {
      return sub->get_name() + ": " + flag_name(words[i]) + ": the value is empty; usage: " + usage_line(*sub) +
             " (pipebench " + sub->get_name() + " --help)";
    }
    if (!attached) ++i;  // the next word is this flag's value, whatever it looks like
  }
  return {};
}

std::string unknown_word_message(const CLI::App& app, const std::vector<std::string>& words) {
  if (words.empty()) return {};
  const CLI::App* sub = named_subcommand(app, words[0]);
  if (!sub && !looks_like_flag(words[0])) {
    return "unknown subcommand '" + quotable(words[0]) + "'" + did_you_mean(words[0], subcommand_names(app)) +
           "; pipebench --help lists them";
  }
  const CLI::App& scope = sub ? *sub : app;
  const std::string prefix = sub ? sub->get_name() + ": " : "";
  for (std::size_t i = sub ? 1 : 0; i < words.size(); ++i) {
    if (!looks_like_flag(words[i])) continue;
    const std::string name = flag_name(words[i]);
    if (scope.get_option_no_throw(name)) continue;
    return prefix + "unknown flag " + name + did_you_mean(name, flag_names(scope)) + "; pipebench " +
           (sub ? sub->get_name() + " " : "") + "--help lists them";
  }
  return {};
}

std::string parse_error_message(const CLI::App& app, const std::vector<std::string>& words, const CLI::ParseError& e) {
  if (std::string unknown = unknown_word_message(app, words); !unknown.empty()) return unknown;
  const CLI::App* sub = words.empty() ? nullptr : named_subcommand(app, words[0]);
  if (!sub) return e.what();
  return sub->get_name() + ": " + e.what() + "; usage: " + usage_line(*sub) + " (pipebench " + sub->get_name() +
         " --help)";
}

}  // namespace pipebench
