// SPDX-License-Identifier: Apache-2.0
// Size parsing and formatting (binary suffixes, like nccl-tests' -b/-e/-i).
#include "core/units.h"

#include <cctype>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/terminal_text.h"

namespace pipebench {

std::uint64_t parse_size_bytes(std::string_view flag, std::string_view text) {
  const std::string s(text);
  auto bad = [&](const std::string& why) {
    return UsageError(std::string(flag) + ": '" + quotable(s) + "' is not a valid size (" + why +
                      "; use e.g. 8, 256K, 64M, 1G)");
  };
  if (s.empty()) throw bad("empty");
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) throw bad(s[0] == '-' ? "negative" : "no number");
  const std::string number = s.substr(0, i);
  if (number.find('.') != number.rfind('.') || number == ".") throw bad("malformed number");
  std::string suffix = s.substr(i);
  for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // nccl-tests reads a size with sscanf("%lf"), so "0x10" is 16 and "1e3" 1000 there: refused here in
  // words (write the bytes in decimal), rather than as the unknown suffix 'X10'.
  if (number == "0" && !suffix.empty() && suffix[0] == 'X') throw bad("hexadecimal is not read; write it in decimal");
  if (suffix.size() > 1 && suffix[0] == 'E' &&
      (std::isdigit(static_cast<unsigned char>(suffix[1])) || suffix[1] == '+' || suffix[1] == '-')) {
    throw bad("an exponent is not read; write the digits or a K/M/G/T suffix");
  }
  double scale = 1;
  if (!suffix.empty() && suffix != "B") {
    const std::size_t power = std::string_view("KMGT").find(suffix[0]);  // K = 2^10, ..., T = 2^40
    const std::string rest = suffix.substr(1);
    if (power == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      throw bad("unknown suffix '" + suffix + "'");
    }
    scale = std::ldexp(1.0, 10 * static_cast<int>(power + 1));
  }
  const double value = std::stod(number) * scale;
  if (!(value > 0)) throw bad("must be greater than 0");
  if (value > 1e18) throw bad("too large");
  if (value != std::floor(value)) throw bad("not a whole number of bytes");
  return static_cast<std::uint64_t>(value);
}

std::string format_size(std::uint64_t size_bytes) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int k = 0;
  std::uint64_t v = size_bytes;
  while (k < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++k;
  }
  return std::to_string(v) + kSuffix[k];
}

}  // namespace pipebench
