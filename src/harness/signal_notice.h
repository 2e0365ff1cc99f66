// SPDX-License-Identifier: Apache-2.0
// A command whose ranks cannot stop between two steps (a replay's ranks wait inside each other's calls, and
// mpirun ends every rank with SIGTERM once one ends) still says why it ended and what it kept: on SIGINT or
// SIGTERM, one line "pipebench: <what> ended by SIGTERM; <kept>" on stderr, then the signal's default
// action (exit status 128 + the signal). The line is made before the handlers are installed: a signal
// handler may only write(2) bytes that already exist.
#pragma once

#include <signal.h>

#include <string>

namespace pipebench {

// "pipebench: " and this is the line: "<what> ended by SIGTERM; <kept>".
[[nodiscard]] std::string signal_notice_text(const std::string& what, int sig, const std::string& kept);

class SignalNotice {
 public:
  // what: "replay"; kept: what was saved ("r.json keeps every finished iteration"). Installs the handlers
  // for its lifetime; the previous ones come back when it ends.
  SignalNotice(const std::string& what, const std::string& kept);
  ~SignalNotice();
  SignalNotice(const SignalNotice&) = delete;
  SignalNotice& operator=(const SignalNotice&) = delete;

 private:
  struct sigaction previous_[2];  // SIGINT, SIGTERM
};

}  // namespace pipebench
