// SPDX-License-Identifier: Apache-2.0
// ProgressWatchdog: turns a stopped replay into an error. The executor publishes the task it is in;
// when one iteration has run longer than the timeout, the watchdog (harness/watchdog.h, restarted at each
// iteration) names the rank, the schedule, the iteration and the task, and aborts the job (a peer that
// died or stopped leaves the others waiting).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "harness/watchdog.h"
#include "launch/world.h"
#include "replay/executor.h"

namespace pipebench {

class ProgressWatchdog {
 public:
  // timeout_s <= 0: disarmed, no thread. job outlives the watchdog.
  ProgressWatchdog(double timeout_s, const World& world, const RankJob& job);

  // Call before each iteration (-1: the warm-up).
  void start_iteration(int iteration);
  std::atomic<std::int64_t>* progress() { return &task_; }

 private:
  [[nodiscard]] std::string message(double timeout_s, const World& world, double elapsed_s) const;

  const RankJob& job_;
  std::atomic<std::int64_t> task_{0};
  std::atomic<int> iteration_{-1};
  Watchdog dog_;  // last: its thread reads the members above
};

}  // namespace pipebench
