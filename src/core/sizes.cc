// SPDX-License-Identifier: Apache-2.0
// Sweep generation. -b 0 hangs nccl-tests (0*2 = 0); here a zero size never reaches this point.
#include "core/sizes.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/units.h"

namespace pipebench {

std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor,
                                       std::uint64_t step_bytes) {
  if (min_bytes == 0) throw UsageError("-b: size 0 is not a valid sweep start");
  if (min_bytes > max_bytes) {
    throw UsageError("-b " + format_size(min_bytes) + " is larger than -e " + format_size(max_bytes));
  }
  if (factor <= 1 && step_bytes == 0) throw UsageError("-i: a step of 0 with -f 1 would never reach -e");
  if (factor <= 1 && (max_bytes - min_bytes) / step_bytes >= kMaxSweepSizes) {
    throw UsageError("-i " + format_size(step_bytes) + ": the sweep from -b " + format_size(min_bytes) + " to -e " +
                     format_size(max_bytes) + " would have more than " + std::to_string(kMaxSweepSizes) +
                     " sizes; use a larger -i or a factor (-f 2)");
  }
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = min_bytes; s <= max_bytes;) {
    out.push_back(s);
    const std::uint64_t next = factor > 1 ? s * factor : s + step_bytes;
    if (next <= s) break;  // overflow
    s = next;
  }
  return out;
}

std::vector<std::uint64_t> parse_size_list(std::string_view flag, std::string_view text) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  const std::string s(text);
  while (true) {
    const std::size_t comma = s.find(',', start);
    out.push_back(
        parse_size_bytes(flag, s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // A size given twice (also as "1K,1024") would be measured twice and its records count double.
  std::vector<std::uint64_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end()) {
    throw UsageError(std::string(flag) + ": " + std::to_string(*twice) +
                     " bytes given twice (each size is measured once: give it once)");
  }
  return out;
}

}  // namespace pipebench
