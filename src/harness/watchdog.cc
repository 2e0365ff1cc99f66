// SPDX-License-Identifier: Apache-2.0
// Watchdog thread per measured point.
#include "harness/watchdog.h"

#include <chrono>
#include <cstdio>

#include "core/error.h"

namespace pipebench {

Watchdog::Watchdog(double timeout_s, const World& world, std::string label) {
  if (timeout_s <= 0) return;
  thread_ = std::thread([this, timeout_s, &world, label = std::move(label)] {
    std::unique_lock<std::mutex> lock(mutex_);
    const bool finished = cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return done_; });
    if (finished) return;
    std::fprintf(stderr, "pipebench: -T %g: %s did not finish within %g s on %s; aborting the job\n", timeout_s,
                 label.c_str(), timeout_s, world.where().c_str());
    std::fflush(stderr);
    world.abort(static_cast<int>(ExitCode::kRuntimeError));
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace pipebench
