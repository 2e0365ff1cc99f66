// SPDX-License-Identifier: Apache-2.0
// Watchdog: turns a hang into an error. If a point has not finished within the timeout (-T), it
// prints which point, rank and host, and aborts the whole job (MPI_Abort) rather than let the other
// ranks wait forever in a collective.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "launch/world.h"

namespace pipebench {

class Watchdog {
 public:
  // timeout_s <= 0: disarmed, no thread.
  Watchdog(double timeout_s, const World& world, std::string label);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pipebench
