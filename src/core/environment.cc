// SPDX-License-Identifier: Apache-2.0
// Allow-listed environment capture for reports.
#include "core/environment.h"

#include <cctype>
#include <string>

#include "core/command_line.h"
#include "core/text.h"

extern char** environ;

namespace pipebench {
namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

bool value_end(char c) {
  return c == '&' || c == ';' || c == ',' || c == '\'' || c == '"' || std::isspace(static_cast<unsigned char>(c));
}

// A name before '=' in free text: "--hf-token", "token", "NCCL_SECRET" (environment.h's rules; a
// tokenizer's argument is no credential there either).
bool sensitive_pair_name(std::string name) {
  name.erase(0, name.find_first_not_of('-'));
  return !name.empty() && is_sensitive_name(name);
}

// The name's words, split at anything but a letter or a digit: "--fim-eod-token" -> {FIM, EOD, TOKEN}.
std::vector<std::string> name_words(const std::string& upper) {
  std::vector<std::string> out;
  std::string word;
  for (const char c : upper + "_") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += c;
    } else if (!word.empty()) {
      out.push_back(word), word.clear();
    }
  }
  return out;
}

// TOKEN as the last word, not after a special token's name (environment.h).
bool token_credential(const std::vector<std::string>& words) {
  if (words.empty() || words.back() != kSecretLastWord) return false;
  if (words.size() == 1) return true;
  for (const char* special : kSpecialTokenWords) {
    if (words[words.size() - 2] == special) return false;
  }
  return true;
}

// RFC 3986 section 3.2.1: the userinfo of an authority is everything before its last '@'
// ("s3://AKIA:SECRET@bucket/x" -> "s3://<redacted>@bucket/x").
std::string redacted_userinfo(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t scheme_end = text.find("://", i);
    if (scheme_end == std::string::npos) break;
    const std::size_t start = scheme_end + 3;
    std::size_t end = start;
    while (end < text.size() && text[end] != '/' && text[end] != '?' && text[end] != '#' && !value_end(text[end]))
      ++end;
    const std::size_t at = text.rfind('@', end == start ? start : end - 1);
    out += text.substr(i, start - i);
    if (at != std::string::npos && at >= start && at < end) {
      out += std::string(kRedacted) + text.substr(at, end - at);
    } else {
      out += text.substr(start, end - start);
    }
    i = end;
  }
  return out + text.substr(i);
}

}  // namespace

std::string redacted_value(const std::string& text) {
  const std::string in = redacted_userinfo(text);
  std::string out;
  std::size_t i = 0;
  while (i < in.size()) {
    const std::size_t eq = in.find('=', i);
    if (eq == std::string::npos) break;
    std::size_t name_start = eq;
    while (name_start > i && name_char(in[name_start - 1])) --name_start;
    std::size_t end = eq + 1;
    while (end < in.size() && !value_end(in[end])) ++end;
    out += in.substr(i, eq + 1 - i);
    const bool secret = name_start < eq && end > eq + 1 && sensitive_pair_name(in.substr(name_start, eq - name_start));
    out += secret ? std::string(kRedacted) : in.substr(eq + 1, end - eq - 1);
    i = end;
  }
  return out + in.substr(i);
}

bool is_sensitive_name(std::string name) {
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* harmless : kHarmlessNames) {
    if (name == harmless) return false;
  }
  for (const char* part : kSecretNameParts) {
    if (name.find(part) != std::string::npos) return true;
  }
  // Short abbreviations only as a whole word between underscores: "PW" inside another word is no secret.
  const std::string words = "_" + name + "_";
  for (const char* word : kSecretNameWords) {
    if (words.find("_" + std::string(word) + "_") != std::string::npos) return true;
  }
  return token_credential(name_words(name));
}

std::map<std::string, std::string> allowed_environment(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = e.substr(0, eq);
    if (!(starts_with(name, "NCCL_") || starts_with(name, "CUDA_") || starts_with(name, "OMPI_") ||
          starts_with(name, "PMIX_"))) {
      continue;
    }
    std::string value = e.substr(eq + 1);
    value = name == "OMPI_ARGV" ? redacted_arguments(split_words(value)) : redacted_value(value);
    out[name] = is_sensitive_name(name) ? kRedacted : value;
  }
  return out;
}

std::map<std::string, std::string> allowed_environment() {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  return allowed_environment(entries);
}

}  // namespace pipebench
