// SPDX-License-Identifier: Apache-2.0
// Watchdog thread per replayed schedule, checked ten times a second.
#include "replay/progress_watchdog.h"

#include <chrono>
#include <cstdio>

#include "core/error.h"

namespace pipebench {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ProgressWatchdog::ProgressWatchdog(double timeout_s, const World& world, const RankJob& job) : job_(job) {
  iteration_start_ns_ = steady_ns();
  if (timeout_s <= 0) return;
  thread_ = std::thread([this, timeout_s, &world] { watch(timeout_s, world); });
}

void ProgressWatchdog::start_iteration(int iteration) {
  task_ = 0;
  iteration_ = iteration;
  iteration_start_ns_ = steady_ns();
}

void ProgressWatchdog::watch(double timeout_s, const World& world) {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; })) {
    const double elapsed_s = static_cast<double>(steady_ns() - iteration_start_ns_.load()) / 1e9;
    if (elapsed_s <= timeout_s) continue;
    const auto task = static_cast<std::size_t>(task_.load());
    const std::string label = task < job_.program.tasks.size() ? job_.program.tasks[task].label() : "end of iteration";
    const int it = iteration_.load();
    std::fprintf(stderr,
                 "pipebench: -T %g: rank %d made no progress for %.1f s in schedule %s%s, %s, task %zu (%s); aborting "
                 "the job\n",
                 timeout_s, world.rank(), elapsed_s, job_.name.c_str(),
                 job_.v > 1 ? (" v=" + std::to_string(job_.v)).c_str() : "",
                 it < 0 ? "warm-up iteration" : ("iteration " + std::to_string(it + 1)).c_str(), task, label.c_str());
    std::fflush(stderr);
    world.abort(static_cast<int>(ExitCode::kRuntimeError));
  }
}

ProgressWatchdog::~ProgressWatchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

}  // namespace pipebench
