// SPDX-License-Identifier: Apache-2.0
// Length of the union of intervals given in non-decreasing start order, in O(1) memory: what "busy"
// and "communication" time of a device mean when kernels on several streams overlap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace pipebench {

class IntervalUnion {
 public:
  // Throws std::logic_error when start goes backwards (the readers sort before they add).
  void add(std::int64_t start, std::int64_t end) {
    if (end < start) end = start;
    if (any_ && start < last_start_) throw std::logic_error("IntervalUnion: intervals out of start order");
    if (!any_ || start > cur_end_) {
      total_ += cur_end_ - cur_start_;
      cur_start_ = start;
      cur_end_ = end;
    } else {
      cur_end_ = std::max(cur_end_, end);
    }
    last_start_ = start;
    any_ = true;
  }
  [[nodiscard]] std::int64_t total() const { return total_ + (cur_end_ - cur_start_); }

 private:
  bool any_ = false;
  std::int64_t last_start_ = 0, cur_start_ = 0, cur_end_ = 0, total_ = 0;
};

}  // namespace pipebench
