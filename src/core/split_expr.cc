// SPDX-License-Identifier: Apache-2.0
#include "core/split_expr.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <utility>

#include "core/error.h"

namespace pipebench {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with_nocase(std::string_view s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(s[i])) != p[i]) return false;
  }
  return true;
}

// The whole of `digits` as an unsigned integer in `base` (0: decimal, 0x hex, leading-0 octal, as strtoul).
bool parse_unsigned(std::string_view digits, int base, std::uint64_t* out) {
  if (digits.empty() || digits.front() == '-' || digits.front() == '+') return false;
  const std::string s(digits);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (errno != 0 || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

// nccl-tests parseInt: "0b" binary, else strtoul base 0.
bool parse_value(std::string_view text, std::uint64_t* out) {
  text = trim(text);
  if (starts_with_nocase(text, "0B")) return parse_unsigned(text.substr(2), 2, out);
  return parse_unsigned(text, 0, out);
}

}  // namespace

std::uint64_t SplitRule::color(int process) const {
  const auto p = static_cast<std::uint64_t>(process);
  switch (kind) {
    case Kind::kAnd:
      return p & value;
    case Kind::kOr:
      return p | value;
    case Kind::kMod:
      return p % value;
    case Kind::kDiv:
      return p / value;
  }
  return 0;
}

SplitRule parse_split_expr(std::string_view what, std::string_view text) {
  static const std::pair<const char*, SplitRule::Kind> kOps[] = {
      {"AND", SplitRule::Kind::kAnd}, {"&", SplitRule::Kind::kAnd},   {"OR", SplitRule::Kind::kOr},
      {"|", SplitRule::Kind::kOr},    {"MOD", SplitRule::Kind::kMod}, {"%", SplitRule::Kind::kMod},
      {"DIV", SplitRule::Kind::kDiv}, {"/", SplitRule::Kind::kDiv}};
  const std::string_view t = trim(text);
  const std::string where = std::string(what) + " '" + std::string(text) + "'";
  for (const auto& [name, kind] : kOps) {
    if (!starts_with_nocase(t, name)) continue;
    SplitRule rule;
    rule.kind = kind;
    rule.text = std::string(t);
    if (!parse_value(t.substr(std::string_view(name).size()), &rule.value)) {
      throw UsageError(where + ": the value after " + name + " is not an integer (decimal, 0x hex or 0b binary)");
    }
    if ((kind == SplitRule::Kind::kMod || kind == SplitRule::Kind::kDiv) && rule.value == 0) {
      throw UsageError(where + ": " + name + " by 0");
    }
    return rule;
  }
  throw UsageError(where + ": expected AND, OR, MOD or DIV (or &, |, %, /) followed by an integer, e.g. 'MOD 2'");
}

SplitRule parse_split_mask(std::string_view what, std::string_view text) {
  std::string_view t = trim(text);
  if (starts_with_nocase(t, "0X")) t.remove_prefix(2);
  SplitRule rule;
  rule.kind = SplitRule::Kind::kAnd;
  rule.text = "AND 0x" + std::string(t);
  if (!parse_unsigned(t, 16, &rule.value)) {
    throw UsageError(std::string(what) + " '" + std::string(text) + "': not a hexadecimal mask");
  }
  return rule;
}

std::vector<std::vector<int>> split_groups(const SplitRule& rule, int nprocs) {
  std::map<std::uint64_t, std::size_t> index;  // colour -> group
  std::vector<std::vector<int>> groups;
  for (int p = 0; p < nprocs; ++p) {
    const auto [it, added] = index.emplace(rule.color(p), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(p);
  }
  return groups;
}

}  // namespace pipebench
