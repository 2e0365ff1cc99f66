// SPDX-License-Identifier: Apache-2.0
// Ascending numbers for one line of text (missing ranks, ranks that did not join): runs written as ranges
// ("2-5, 7, 9-16777215") and only the first kShownRanges of those, then how many numbers there are in all,
// so the line and the memory behind it stay small whatever the count (a world size is up to 2^31).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipebench {

inline constexpr std::size_t kShownRanges = 8;

class RangeList {
 public:
  // Adds n, larger than every number added before (a smaller or equal one is ignored).
  void add(std::int64_t n);
  [[nodiscard]] std::int64_t count() const { return count_; }
  // "2-5, 7, 9-12", or "2-5, 7, ... (1234 in all)" when more ranges than kShownRanges; "" when empty.
  [[nodiscard]] std::string text() const;

 private:
  struct Range {
    std::int64_t first, last;
  };
  std::vector<Range> shown_;  // at most kShownRanges; the last may still grow while more_ is false
  std::int64_t last_ = 0, count_ = 0;
  bool more_ = false;  // a range beyond the shown ones
};

// The numbers of an ascending list as RangeList::text writes them.
[[nodiscard]] std::string range_list_text(const std::vector<int>& ascending);

}  // namespace pipebench
