// SPDX-License-Identifier: Apache-2.0
// The steps and messages are those of CPython 3.11's Lib/argparse.py: each word is classed as an option
// ('O') or an argument ('A', and '-' for the first "--"); an option takes the run of 'A' words after it
// that its nargs pattern matches (for options the pattern never takes "--"); values are converted and
// checked against the choices as they are taken, so the first faulty occurrence from the left is the one
// named; words no option took are "unrecognized arguments", reported after the whole line is read.
#include "megatron/megatron_argparse.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/command_line.h"
#include "core/error.h"
#include "core/suggest.h"
#include "megatron/python_number.h"

namespace pipebench {
namespace {

std::vector<std::string> space_separated(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// argparse's error text: "argument --x/--no-x: ..." names the action by all its option strings.
std::string action_name(const MegatronArgumentSpec& spec) {
  std::string out;
  for (const auto& s : space_separated(spec.option_strings)) out += (out.empty() ? "" : "/") + s;
  return out;
}

// Python's repr of a string value: single quotes, or double quotes where the text holds a single one.
std::string repr(const std::string& s) {
  const bool double_quotes = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  std::string out(1, double_quotes ? '"' : '\'');
  for (char c : s) {
    if (c == '\\' || (c == '\'' && !double_quotes)) out += '\\';
    out += c;
  }
  return out + (double_quotes ? '"' : '\'');
}

std::string commit_tail() {
  return ": Megatron-LM would refuse it (its arguments as of commit " +
         std::string(kMegatronArgumentsCommit).substr(0, 12) + ")";
}

[[noreturn]] void refuse(const std::string& argparse_text, const std::string& suggestion = "") {
  throw UsageError("Megatron arguments: " + argparse_text + suggestion + commit_tail());
}

[[noreturn]] void refuse(const MegatronArgumentSpec& spec, const std::string& text,
                         const std::string& suggestion = "") {
  refuse("argument " + action_name(spec) + ": " + text, suggestion);
}

// A word classed as argparse's _parse_optional classes it.
struct Classified {
  char pattern = 'A';                          // 'O' option, 'A' argument, '-' the first "--"
  const MegatronArgumentSpec* spec = nullptr;  // the action of an 'O' (nullptr: unknown option)
  std::string option;                          // the option string before any "="
  std::optional<std::string> explicit_value;   // the text after "=" of "--x=value"
};

class Parser {
 public:
  explicit Parser(const std::vector<MegatronArgumentSpec>& table) {
    for (const auto& spec : table) {
      for (const auto& s : space_separated(spec.option_strings)) {
        by_option_[s] = &spec;
        known_.push_back(s);
      }
    }
  }

  std::vector<MegatronArgument> parse(const std::vector<std::string>& args) const {
    const std::vector<Classified> classes = classify(args);
    std::vector<MegatronArgument> given;
    std::vector<std::string> extras;
    for (std::size_t i = 0; i < args.size();) {
      const Classified& c = classes[i];
      if (c.pattern != 'O' || c.spec == nullptr) {
        extras.push_back(args[i++]);
        continue;
      }
      const std::size_t count = c.explicit_value ? 0 : values_taken(*c.spec, classes, i + 1);
      MegatronArgument arg{c.option, {}, *c.spec};
      if (c.explicit_value) {
        take_explicit(*c.spec, *c.explicit_value);
        arg.values = {*c.explicit_value};
      } else {
        arg.values.assign(args.begin() + static_cast<std::ptrdiff_t>(i + 1),
                          args.begin() + static_cast<std::ptrdiff_t>(i + 1 + count));
      }
      for (const auto& v : arg.values) check_value(*c.spec, v);
      given.push_back(std::move(arg));
      i += 1 + count;
    }
    if (!extras.empty()) refuse_extras(extras);
    return last_occurrences(given);
  }

 private:
  std::vector<Classified> classify(const std::vector<std::string>& args) const {
    std::vector<Classified> out;
    bool after_double_dash = false;
    for (const auto& w : args) {
      Classified c;
      if (after_double_dash) {
        c.pattern = 'A';
      } else if (w == "--") {
        c.pattern = '-';
        after_double_dash = true;
      } else {
        c = classify_word(w);
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  Classified classify_word(const std::string& w) const {
    Classified c;
    if (w.empty() || w[0] != '-') return c;
    if (const auto it = by_option_.find(w); it != by_option_.end()) return {'O', it->second, w, std::nullopt};
    if (w.size() == 1) return c;
    // -h, --help and "-h..." (a short option with its value attached) are argparse's help action:
    // Megatron prints its help and exits, and there is nothing to plan.
    if (w == "--help" || w.rfind("--help=", 0) == 0 || (w.rfind("-h", 0) == 0))
      throw UsageError("Megatron arguments: " + w + ": Megatron-LM prints its help and exits; nothing to plan");
    if (const std::size_t eq = w.find('='); eq != std::string::npos) {
      if (const auto it = by_option_.find(w.substr(0, eq)); it != by_option_.end())
        return {'O', it->second, w.substr(0, eq), w.substr(eq + 1)};
    }
    // argparse's _negative_number_matcher: Megatron has no option that looks like a negative number.
    static const std::regex kNegativeNumber(R"(^-\d+$|^-\d*\.\d+$)");
    if (std::regex_match(w, kNegativeNumber) || w.find(' ') != std::string::npos) return c;
    c.pattern = 'O';
    c.option = w.substr(0, w.find('='));
    return c;
  }

  // How many of the 'A' words from `from` the action takes (its nargs pattern with "-*" and "-" taken
  // out, as _get_nargs_pattern does for options), or argparse's error where the pattern does not match.
  static std::size_t values_taken(const MegatronArgumentSpec& spec, const std::vector<Classified>& classes,
                                  std::size_t from) {
    std::size_t run = 0;
    while (from + run < classes.size() && classes[from + run].pattern == 'A') ++run;
    const std::string_view n = spec.nargs;
    if (n.empty()) {
      if (run < 1) refuse(spec, "expected one argument");
      return 1;
    }
    if (n == "?") return std::min<std::size_t>(run, 1);
    if (n == "*") return run;
    if (n == "+") {
      if (run < 1) refuse(spec, "expected at least one argument");
      return run;
    }
    const std::size_t count = std::stoul(std::string(n));
    if (run < count) refuse(spec, "expected " + std::string(n) + (count == 1 ? " argument" : " arguments"));
    return count;
  }

  // "--x=value": one value, matched against the pattern of a single 'A'.
  static void take_explicit(const MegatronArgumentSpec& spec, const std::string& value) {
    const std::string_view n = spec.nargs;
    if (n == "0") refuse(spec, "ignored explicit argument " + repr(value));
    if (!n.empty() && n != "?" && n != "*" && n != "+" && n != "1")
      refuse(spec, "expected " + std::string(n) + " arguments");
  }

  // _get_value and _check_value: the value converted by the action's type, then looked up in its choices.
  static void check_value(const MegatronArgumentSpec& spec, const std::string& value) {
    const std::vector<std::string> choices = space_separated(spec.choices);
    if (spec.type == "int" || spec.type == "float") {
      const bool is_int = spec.type == "int";
      const bool ok = is_int ? python_int(value).has_value() : python_float(value).has_value();
      if (!ok) refuse(spec, "invalid " + std::string(spec.type) + " value: " + repr(value));
      if (choices.empty()) return;
      const auto same = [&](const std::string& choice) {
        return is_int ? python_int(choice) == python_int(value) : python_float(choice) == python_float(value);
      };
      if (std::none_of(choices.begin(), choices.end(), same)) {
        const std::string shown = is_int ? std::to_string(*python_int(value)) : value;
        refuse(spec, "invalid choice: " + shown + " (choose from " + join(choices, false) + ")");
      }
      return;
    }
    if (choices.empty() || std::find(choices.begin(), choices.end(), value) != choices.end()) return;
    if (spec.type == "enum")  // argument_utils.py: Enum[value] raises KeyError, which argparse lets through
      refuse(spec, repr(value) + " is not one of " + join(choices, false) +
                       " (Megatron-LM stops with KeyError: " + repr(value) + ")");
    refuse(spec, "invalid choice: " + repr(value) + " (choose from " + join(choices, true) + ")",
           did_you_mean(value, choices));
  }

  static std::string join(const std::vector<std::string>& choices, bool quoted) {
    std::string out;
    for (const auto& c : choices) out += (out.empty() ? "" : ", ") + (quoted ? repr(c) : c);
    return out;
  }

  void refuse_extras(const std::vector<std::string>& extras) const {
    // The words joined as argparse joins them, unless a credential is among them: then as the command
    // line is echoed (core/command_line.h: redacted, and quoted for a shell). The nearest name is offered
    // for the first word that looks like an option and is none (not for a known one after "--").
    const auto option = std::find_if(extras.begin(), extras.end(), [this](const std::string& w) {
      return w.rfind("--", 0) == 0 && w.size() > 2 && by_option_.count(w.substr(0, w.find('='))) == 0;
    });
    std::string text = redacted_arguments(extras);
    if (text.find("<redacted>") == std::string::npos) {
      text.clear();
      for (const auto& w : extras) text += (text.empty() ? "" : " ") + w;
    }
    refuse("unrecognized arguments: " + text,
           option == extras.end() ? "" : did_you_mean(option->substr(0, option->find('=')), known_));
  }

  // argparse stores each occurrence in turn: the last one of an action is what Megatron sees.
  static std::vector<MegatronArgument> last_occurrences(const std::vector<MegatronArgument>& given) {
    std::vector<MegatronArgument> out;
    for (std::size_t i = 0; i < given.size(); ++i) {
      const auto later = std::find_if(
          given.begin() + static_cast<std::ptrdiff_t>(i + 1), given.end(),
          [&](const MegatronArgument& g) { return g.spec.option_strings == given[i].spec.option_strings; });
      if (later == given.end()) out.push_back(given[i]);
    }
    return out;
  }

  std::map<std::string, const MegatronArgumentSpec*> by_option_;
  std::vector<std::string> known_;
};

}  // namespace

std::vector<MegatronArgument> parse_megatron_argv(const std::vector<std::string>& args,
                                                  const std::vector<MegatronArgumentSpec>& table) {
  return Parser(table).parse(args);
}

}  // namespace pipebench
