// SPDX-License-Identifier: Apache-2.0
// A real-time priority for a scope (sched_setscheduler(2) SCHED_FIFO 1), else nice -20 (setpriority(2));
// without the privilege for either nothing changes. The kernel's real-time throttling
// (sched_rt_runtime_us) still leaves the rest of the machine its share while ranks spin in MPI waits.
#include "backend/process_priority.h"

#include <sched.h>
#include <sys/resource.h>

#include <cerrno>

namespace pipebench {

ScopedPriorityBoost::ScopedPriorityBoost() {
  old_policy_ = sched_getscheduler(0);
  sched_param old{};
  sched_getparam(0, &old);
  old_rt_priority_ = old.sched_priority;
  const sched_param rt{1};
  if (sched_setscheduler(0, SCHED_FIFO, &rt) == 0) {
    realtime_ = active_ = true;
    return;
  }
  errno = 0;
  old_nice_ = getpriority(PRIO_PROCESS, 0);
  active_ = errno == 0 && setpriority(PRIO_PROCESS, 0, -20) == 0;
}

ScopedPriorityBoost::~ScopedPriorityBoost() {
  if (realtime_) {
    const sched_param old{old_rt_priority_};
    sched_setscheduler(0, old_policy_, &old);
  } else if (active_) {
    setpriority(PRIO_PROCESS, 0, old_nice_);
  }
}

}  // namespace pipebench
