// SPDX-License-Identifier: Apache-2.0
// SignalNotice in a child process: the signal's line on stderr, then the signal ends the child; once the
// notice ends, the previous handling is back.
#include "harness/signal_notice.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace pipebench {
namespace {

struct Ended {
  std::string err;
  int status = 0;
};

// Runs body in a child whose stderr is a pipe read here.
template <typename Body>
Ended in_child(Body body) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    body();
    std::_Exit(0);
  }
  close(fds[1]);
  Ended e;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) e.err.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  waitpid(pid, &e.status, 0);
  return e;
}

TEST(SignalNotice, TheSignalIsToldAndStillEndsTheProcess) {
  for (const int sig : {SIGTERM, SIGINT}) {
    const Ended e = in_child([sig] {
      const SignalNotice notice("replay", "every finished iteration is in r.json");
      raise(sig);
    });
    ASSERT_TRUE(WIFSIGNALED(e.status)) << e.status;
    EXPECT_EQ(WTERMSIG(e.status), sig);
    EXPECT_EQ(e.err, std::string("pipebench: replay ended by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                         "; every finished iteration is in r.json\n");
  }
}

TEST(SignalNotice, ThePreviousHandlingComesBack) {
  const Ended e = in_child([] {
    signal(SIGTERM, SIG_IGN);
    { const SignalNotice notice("replay", "kept"); }
    raise(SIGTERM);  // ignored again
  });
  ASSERT_TRUE(WIFEXITED(e.status)) << e.status;
  EXPECT_EQ(WEXITSTATUS(e.status), 0);
  EXPECT_EQ(e.err, "");
}

}  // namespace
}  // namespace pipebench
