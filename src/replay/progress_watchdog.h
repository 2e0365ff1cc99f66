// SPDX-License-Identifier: Apache-2.0
// ProgressWatchdog: turns a stopped replay into an error. The executor publishes the task it is in;
// when one iteration has run longer than the timeout, the watchdog (harness/watchdog.h, restarted at each
// iteration) names the rank, the schedule, the iteration, the task, and the ranks that task waits on,
// and aborts the job. A peer that died or stopped leaves the others waiting, and a stopped process's
// own watchdog stops with it: the line comes from a rank that waits, so it must name whom it waits on
// ("rank 2 ... waits on rank 1 (receives 4096 B from rank 1)"), not only itself.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "harness/watchdog.h"
#include "launch/world.h"
#include "replay/executor.h"

namespace pipebench {

// What a rank at `task` of `job` waits on: "waits on rank 1 (receives 4096 B from rank 1)", "waits on
// ranks 0, 2, 3 (all_reduce of the data-parallel group)", "waits on no rank (computing: this rank is the
// one the others wait for)". task kIterationStart is the barrier that starts an iteration, a task past the
// last one the reductions that end it (both over every rank of the world).
inline constexpr std::int64_t kIterationStart = -1;
[[nodiscard]] std::string waited_on(const RankJob& job, std::int64_t task, int rank, int world_size);

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
  std::atomic<std::int64_t> task_{kIterationStart};
  std::atomic<int> iteration_{-1};
  Watchdog dog_;  // last: its thread reads the members above
};

}  // namespace pipebench
