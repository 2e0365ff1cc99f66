// SPDX-License-Identifier: Apache-2.0
// Redacted command lines for output files.
#include "core/command_line.h"

#include <cctype>
#include <fstream>
#include <iterator>

#include "core/environment.h"

namespace pipebench {
namespace {

// "--wandb-api-key" -> "WANDB_API_KEY", the shape environment.h's rules read (which keep Megatron's
// tokenizer arguments, --tokenizer-type, --tiktoken-pattern, readable: they name no token).
bool sensitive_flag(const std::string& flag) {
  const std::size_t start = flag.find_first_not_of('-');
  if (start == std::string::npos) return false;
  std::string name = flag.substr(start);
  for (auto& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return is_sensitive_name(name);
}

bool is_flag(const std::string& w) {
  return w.size() > 1 && w[0] == '-' && w.find_first_not_of('-') != std::string::npos;
}

// Single quotes for a POSIX shell where a word holds anything but [A-Za-z0-9_./:=,+@%-].
std::string quoted(const std::string& w) {
  bool plain = !w.empty();
  for (const char c : w) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::string("_./:=,+@%-").find(c) != std::string::npos)) {
      plain = false;
    }
  }
  if (plain) return w;
  std::string out = "'";
  for (const char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string redacted_arguments(const std::vector<std::string>& words) {
  std::string out;
  bool redact_next = false;
  for (const auto& w : words) {
    std::string shown;  // the marker itself is never quoted
    if (redact_next && !is_flag(w)) {
      shown = kRedacted;
    } else if (const auto eq = w.find('='); eq != std::string::npos && eq > 0 && sensitive_flag(w.substr(0, eq))) {
      // --flag=value and NAME=value; the name part too may be a URL with a password ("s3://a:p@b/x?token=v").
      shown = quoted(redacted_value(w.substr(0, eq + 1))) + kRedacted;
    } else {
      shown = quoted(redacted_value(w));  // URL passwords and token=... inside any word
    }
    redact_next = is_flag(w) && w.find('=') == std::string::npos && sensitive_flag(w);
    out += (out.empty() ? "" : " ") + shown;
  }
  return out;
}

std::string redacted_command_line(const std::vector<std::string>& words) {
  if (words.empty()) return {};
  const std::string& program = words.front();
  const std::string args = redacted_arguments({words.begin() + 1, words.end()});
  return quoted(program.substr(program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1)) +
         (args.empty() ? "" : " " + args);
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', i);
    if (start == std::string::npos) break;
    const std::size_t end = text.find(' ', start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    i = end == std::string::npos ? text.size() : end;
  }
  return out;
}

std::string this_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  if (!in) return {};
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\0') continue;
    words.push_back(raw.substr(start, i - start));
    start = i + 1;
  }
  if (start < raw.size()) words.push_back(raw.substr(start));
  return redacted_command_line(words);
}

}  // namespace pipebench
