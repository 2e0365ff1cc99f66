// SPDX-License-Identifier: Apache-2.0
#include "core/range_list.h"

namespace pipebench {

void RangeList::add(std::int64_t n) {
  if (count_ > 0 && n <= last_) return;
  const bool extends = count_ > 0 && n == last_ + 1;
  last_ = n, ++count_;
  if (more_) return;
  if (extends) {
    shown_.back().last = n;
  } else if (shown_.size() < kShownRanges) {
    shown_.push_back({n, n});
  } else {
    more_ = true;
  }
}

std::string RangeList::text() const {
  std::string out;
  for (const Range& r : shown_) {
    out += (out.empty() ? "" : ", ") + std::to_string(r.first);
    if (r.last > r.first) out += (r.last == r.first + 1 ? ", " : "-") + std::to_string(r.last);
  }
  if (more_) out += ", ... (" + std::to_string(count_) + " in all)";
  return out;
}

std::string range_list_text(const std::vector<int>& ascending) {
  RangeList list;
  for (const int n : ascending) list.add(n);
  return list.text();
}

}  // namespace pipebench
