// SPDX-License-Identifier: Apache-2.0
// The replay's watchdog message.
#include "replay/progress_watchdog.h"

#include <cstdio>

namespace pipebench {

ProgressWatchdog::ProgressWatchdog(double timeout_s, const World& world, const RankJob& job)
    : job_(job), dog_(timeout_s, world, [this, timeout_s, &world](double elapsed_s) {
        return message(timeout_s, world, elapsed_s);
      }) {}

void ProgressWatchdog::start_iteration(int iteration) {
  task_ = 0;
  iteration_ = iteration;
  dog_.restart();
}

std::string ProgressWatchdog::message(double timeout_s, const World& world, double elapsed_s) const {
  const auto task = static_cast<std::size_t>(task_.load());
  const std::string label = task < job_.program.tasks.size() ? job_.program.tasks[task].label() : "end of iteration";
  const int it = iteration_.load();
  char head[96];
  std::snprintf(head, sizeof head, "-T %g: rank %d made no progress for %.1f s", timeout_s, world.rank(), elapsed_s);
  return std::string(head) + " in schedule " + job_.id.label() + ", " +
         (it < 0 ? "warm-up iteration" : "iteration " + std::to_string(it + 1)) + ", task " + std::to_string(task) +
         " (" + label + ")";
}

}  // namespace pipebench
