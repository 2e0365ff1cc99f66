// SPDX-License-Identifier: Apache-2.0
// SIGINT and SIGTERM during a measuring command (bench, bench --plan, run): the first one asks the sweep
// to stop before its next point (the ranks agree at every point, so that none is left waiting in a
// collective the others left), after which the command ends its files and tables as after a whole
// sweep, says what was saved and exits 128 + the signal (130, 143: the shell's convention). A second
// signal ends the process at once (the default action is restored by the first). Ranks that `run` started
// under mpirun itself get the user's SIGINT as SIGUSR1 and SIGTERM as SIGUSR2 (launch/mpirun_relaunch.h).
#pragma once

#include <signal.h>

#include <string>

namespace pipebench {

// Installs the handlers for its lifetime and clears a signal seen before; restores the previous
// handlers when it ends.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_[4];  // SIGINT, SIGTERM, and SIGUSR1, SIGUSR2 where they stand for them
  int handled_ = 2;
};

// The signal received since the guard was installed (SIGINT or SIGTERM), or 0.
[[nodiscard]] int interrupt_signal();

// "SIGINT", "SIGTERM".
[[nodiscard]] std::string signal_name(int sig);

}  // namespace pipebench
