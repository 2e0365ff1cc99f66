// SPDX-License-Identifier: Apache-2.0
// ProgressWatchdog: turns a stopped replay into an error. The executor publishes the task it is in;
// when one iteration has run longer than the timeout, the watchdog names the rank, the schedule, the
// iteration and the task, and aborts the job (a peer that died or stopped leaves the others waiting).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "launch/world.h"
#include "replay/executor.h"

namespace pipebench {

class ProgressWatchdog {
 public:
  // timeout_s <= 0: disarmed, no thread. job outlives the watchdog.
  ProgressWatchdog(double timeout_s, const World& world, const RankJob& job);
  ~ProgressWatchdog();
  ProgressWatchdog(const ProgressWatchdog&) = delete;
  ProgressWatchdog& operator=(const ProgressWatchdog&) = delete;

  // Call before each iteration (-1: the warm-up).
  void start_iteration(int iteration);
  std::atomic<std::int64_t>* progress() { return &task_; }

 private:
  void watch(double timeout_s, const World& world);

  const RankJob& job_;
  std::atomic<std::int64_t> task_{0};
  std::atomic<std::int64_t> iteration_start_ns_{0};
  std::atomic<int> iteration_{-1};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pipebench
