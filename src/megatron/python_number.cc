// SPDX-License-Identifier: Apache-2.0
// The grammars are those of Python's reference, "Integer literals" and "Floating-point literals"
// (docs.python.org/3/reference/lexical_analysis.html), which int() and float() accept with whitespace
// around them and a sign in front (float() also takes inf/infinity/nan, in any case).
#include "megatron/python_number.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "core/text.h"

namespace pipebench {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The text without surrounding ASCII whitespace (what str.strip() removes of it).
std::string stripped(const std::string& text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  const auto first = std::find_if_not(text.begin(), text.end(), space);
  const auto last = std::find_if_not(text.rbegin(), text.rend(), space).base();
  return first < last ? std::string(first, last) : std::string();
}

// Digits with single underscores between them, from `pos`; returns the digits without underscores and
// moves `pos` past them. "" where there is no digit at `pos` or an underscore is misplaced.
std::string digit_run(const std::string& s, std::size_t& pos) {
  std::string digits;
  while (pos < s.size() && is_digit(s[pos])) {
    digits += s[pos++];
    if (pos + 1 < s.size() && s[pos] == '_' && is_digit(s[pos + 1])) ++pos;
  }
  if (pos < s.size() && s[pos] == '_') return "";
  return digits;
}

}  // namespace

std::optional<std::int64_t> python_int(const std::string& text) {
  const std::string s = stripped(text);
  std::size_t pos = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  const std::string digits = digit_run(s, pos);
  if (digits.empty() || pos != s.size()) return std::nullopt;
  errno = 0;
  const long long value = std::strtoll((s.substr(0, s[0] == '-' ? 1 : 0) + digits).c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::optional<double> python_float(const std::string& text) {
  const std::string s = stripped(text);
  const bool negative = !s.empty() && s[0] == '-';
  std::size_t pos = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  const std::string word = lower(s.substr(pos));
  if (word == "inf" || word == "infinity")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (word == "nan") return std::numeric_limits<double>::quiet_NaN();
  std::string plain = negative ? "-" : "";
  const std::string whole = digit_run(s, pos);
  plain += whole;
  std::string fraction;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    fraction = digit_run(s, pos);
    plain += "." + fraction;
  }
  if (whole.empty() && fraction.empty()) return std::nullopt;
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    plain += 'e';
    ++pos;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) plain += s[pos++];
    const std::string exponent = digit_run(s, pos);
    if (exponent.empty()) return std::nullopt;
    plain += exponent;
  }
  if (pos != s.size()) return std::nullopt;
  return std::strtod(plain.c_str(), nullptr);  // out of range: +-inf or 0, as Python's float() gives
}

}  // namespace pipebench
