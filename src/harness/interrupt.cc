// SPDX-License-Identifier: Apache-2.0
// The handler only records the signal: a lock-free atomic is all a signal handler may touch
// (async-signal safety), so this one flag is the process-wide state a signal needs.
#include "harness/interrupt.h"

#include <atomic>
#include <cstdlib>

#include "launch/mpirun_relaunch.h"

namespace pipebench {
namespace {

std::atomic<int> g_signal{0};  // written by the handler, read between points

// The first signal is kept: after a SIGUSR1 (the user's SIGINT) mpirun may still send SIGTERM.
extern "C" void record_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig == SIGUSR1 ? SIGINT : sig == SIGUSR2 ? SIGTERM : sig);
}

constexpr int kSignals[4] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2};

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  // SIGUSR1/SIGUSR2 are the user's SIGINT/SIGTERM only where pipebench started these ranks under mpirun
  // and said so (launch/mpirun_relaunch.h); elsewhere they keep their meaning.
  handled_ = std::getenv(kStopSignalsAsUsrVariable) ? 4 : 2;
  for (int i = 0; i < handled_; ++i) {
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_RESTART;  // a second signal takes the default action: the process ends
    ::sigaction(kSignals[i], &sa, &previous_[i]);
  }
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < handled_; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

int interrupt_signal() { return g_signal.load(); }

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

}  // namespace pipebench
