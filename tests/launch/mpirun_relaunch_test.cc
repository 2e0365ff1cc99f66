// SPDX-License-Identifier: Apache-2.0
#include "launch/mpirun_relaunch.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>

namespace pipebench {
namespace {

TEST(MpirunRelaunch, OversubscribeOnlyWhereRanksExceedTheCores) {
  const std::vector<std::string> args = {"pairs", "--sizes", "8"};
  EXPECT_EQ(mpirun_words("/usr/bin/mpirun", 4, 2, "/x/pipebench", args),
            (std::vector<std::string>{"/usr/bin/mpirun", "-np", "4", "--oversubscribe", "/x/pipebench", "pairs",
                                      "--sizes", "8"}));
  EXPECT_EQ(mpirun_words("/usr/bin/mpirun", 4, 4, "/x/pipebench", args),
            (std::vector<std::string>{"/usr/bin/mpirun", "-np", "4", "/x/pipebench", "pairs", "--sizes", "8"}));
  EXPECT_EQ(mpirun_words("mpirun", 2, 16, "pb", {}), (std::vector<std::string>{"mpirun", "-np", "2", "pb"}));
}

TEST(MpirunRelaunch, PhysicalCoresAreAtLeastOneAndAtMostTheCpusThisProcessMayUse) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cores = physical_cores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores, CPU_COUNT(&allowed));
}

// A stand-in for mpirun that the user's SIGTERM ends before any rank said a word (as mpirun may end before it
// passes on what a rank wrote when stopped): the supervising process writes the command's stopped line itself,
// once, and exits 143.
TEST(MpirunRelaunch, AStopWithoutTheRanksLineIsToldByTheSupervisor) {
  const std::string fake = ::testing::TempDir() + "fake_mpirun_" + std::to_string(getpid());
  std::ofstream(fake) << "#!/bin/sh\ntrap 'exit 143' TERM\nwhile :; do sleep 0.05; done\n";
  ASSERT_EQ(chmod(fake.c_str(), 0700), 0);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    run_under_mpirun(fake, 2, {"replay"}, StopForwarding::kTerminate,
                     [](int sig) { return std::string("replay ended by ") + (sig == SIGTERM ? "SIGTERM" : "?"); });
  }
  close(fds[1]);
  usleep(500 * 1000);  // the stand-in runs
  kill(pid, SIGTERM);
  std::string err;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::remove(fake.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 143);
  EXPECT_EQ(err, "pipebench: replay ended by SIGTERM\n");
}

}  // namespace
}  // namespace pipebench
