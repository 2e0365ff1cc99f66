// SPDX-License-Identifier: Apache-2.0
// ScopedPriorityBoost: this process at a real-time priority (else the highest CFS weight) where
// allowed, restored when it ends. Replay times the plan's messages for its prediction under it, as close as a table can
// get to the conditions of the replay itself (whose ranks run at a real-time priority inside iterations).
#pragma once

namespace pipebench {

class ScopedPriorityBoost {
 public:
  ScopedPriorityBoost();
  ~ScopedPriorityBoost();
  ScopedPriorityBoost(const ScopedPriorityBoost&) = delete;
  ScopedPriorityBoost& operator=(const ScopedPriorityBoost&) = delete;
  [[nodiscard]] bool active() const { return active_; }

 private:
  int old_nice_ = 0, old_policy_ = 0, old_rt_priority_ = 0;
  bool active_ = false, realtime_ = false;
};

}  // namespace pipebench
