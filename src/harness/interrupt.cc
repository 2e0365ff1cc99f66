// SPDX-License-Identifier: Apache-2.0
// The handler only records the signal: a lock-free atomic is all a signal handler may touch
// (async-signal safety), so this one flag is the process-wide state a signal needs.
#include "harness/interrupt.h"

#include <atomic>

namespace pipebench {
namespace {

std::atomic<int> g_signal{0};  // written by the handler, read between points

extern "C" void record_signal(int sig) { g_signal.store(sig); }

constexpr int kSignals[2] = {SIGINT, SIGTERM};

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  for (int i = 0; i < 2; ++i) {
    struct sigaction sa {};
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_RESTART;  // a second signal takes the default action: the process ends
    ::sigaction(kSignals[i], &sa, &previous_[i]);
  }
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

int interrupt_signal() { return g_signal.load(); }

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

}  // namespace pipebench
