// SPDX-License-Identifier: Apache-2.0
// The lines live in fixed buffers that the handler only reads: a signal handler may call write(2) and
// nothing that allocates or locks (async-signal safety), so the text a signal needs is process-wide state.
#include "harness/signal_notice.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/terminal_text.h"

namespace pipebench {
namespace {

constexpr std::size_t kLineBytes = 2048;
constexpr int kSignals[2] = {SIGINT, SIGTERM};
char g_lines[2][kLineBytes];  // per signal, written before its handler is installed
std::size_t g_sizes[2];

extern "C" void tell_and_end(int sig) {
  const int i = sig == SIGINT ? 0 : 1;
  (void)!write(STDERR_FILENO, g_lines[i], g_sizes[i]);
  raise(sig);  // SA_RESETHAND restored the default action: the process ends with the signal once this returns
}

}  // namespace

std::string signal_notice_text(const std::string& what, int sig, const std::string& kept) {
  return what + " ended by " +
         (sig == SIGINT    ? "SIGINT"
          : sig == SIGTERM ? "SIGTERM"
                           : "signal " + std::to_string(sig)) +
         "; " + kept;
}

SignalNotice::SignalNotice(const std::string& what, const std::string& kept) {
  for (int i = 0; i < 2; ++i) {
    std::string line = "pipebench: " + signal_notice_text(what, kSignals[i], kept);
    line = one_line(line).substr(0, kLineBytes - 1) + "\n";
    std::memcpy(g_lines[i], line.data(), line.size());
    g_sizes[i] = line.size();
    struct sigaction sa {};
    sa.sa_handler = tell_and_end;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(kSignals[i], &sa, &previous_[i]);
  }
}

SignalNotice::~SignalNotice() {
  for (int i = 0; i < 2; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

}  // namespace pipebench
