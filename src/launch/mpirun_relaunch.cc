// SPDX-License-Identifier: Apache-2.0
// Re-launch under mpirun.
#include "launch/mpirun_relaunch.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "launch/mpirun_banner_filter.h"

namespace pipebench {
namespace {

// The supervising process's state, touched by its signal handler (async-signal-safe: kill and plain stores).
pid_t g_mpirun = 0;
bool g_graceful = false;
volatile sig_atomic_t g_user_signal = 0;  // the first SIGINT or SIGTERM the user sent

extern "C" void forward_stop(int sig) {
  if (g_user_signal != 0) {
    ::kill(g_mpirun, SIGTERM);  // a second signal: mpirun ends the ranks at once
    return;
  }
  g_user_signal = sig;
  if (g_graceful) {
    ::kill(g_mpirun, sig == SIGINT ? SIGUSR1 : SIGUSR2);
  } else {
    ::kill(g_mpirun, SIGTERM);
  }
}

// Passes mpirun's standard error (the read end of its pipe) on to ours, without Open MPI's banners after
// pipebench's own error line (launch/mpirun_banner_filter.h), until every writer has closed it. Returns whether
// that line came.
bool pass_on_standard_error(int fd) {
  MpirunBannerFilter filter([](std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = ::write(STDERR_FILENO, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // our stderr is gone: nothing left to tell
      text.remove_prefix(static_cast<std::size_t>(n));
    }
  });
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    filter.feed(std::string_view(buf, static_cast<std::size_t>(n)));
  }
  filter.finish();
  ::close(fd);
  return filter.error_seen();
}

}  // namespace

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return {};
}

int physical_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::set<std::pair<std::string, std::string>> cores;  // (package, core) of each CPU this process may use
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(dir + "physical_package_id"), core(dir + "core_id");
    std::string p, c;
    if (!(package >> p) || !(core >> c)) {  // no sysfs topology: count the CPU as a core of its own
      p = "cpu";
      c = std::to_string(cpu);
    }
    cores.emplace(p, c);
  }
  return std::max<int>(1, static_cast<int>(cores.size()));
}

std::vector<std::string> mpirun_words(const std::string& mpirun, int ranks, int cores, const std::string& self,
                                      const std::vector<std::string>& args) {
  std::vector<std::string> words = {mpirun, "-np", std::to_string(ranks)};
  if (ranks > cores) words.push_back("--oversubscribe");
  words.push_back(self);
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

void run_under_mpirun(const std::string& mpirun, int ranks, const std::vector<std::string>& args, StopForwarding stop,
                      const std::function<std::string(int sig)>& stopped_line) {
  if (geteuid() == 0) {  // Open MPI refuses root without these (its own documented override)
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  if (stop == StopForwarding::kGraceful) setenv(kStopSignalsAsUsrVariable, "1", 1);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> words = mpirun_words(mpirun, ranks, physical_cores(), self, args);
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  g_graceful = stop == StopForwarding::kGraceful;
  // Blocked until the handlers are in place: a signal in between would end this process and leave mpirun.
  sigset_t stops, previous;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  sigprocmask(SIG_BLOCK, &stops, &previous);
  std::fflush(nullptr);
  int err_pipe[2] = {-1, -1};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw Error("pipe() for " + mpirun + " failed");
  g_mpirun = fork();
  if (g_mpirun == 0) {
    sigprocmask(SIG_SETMASK, &previous, nullptr);  // a signal mask survives execv
    ::dup2(err_pipe[1], STDERR_FILENO);            // the copy is not close-on-exec: mpirun writes there
    execv(mpirun.c_str(), argv.data());
    std::fprintf(stderr, "pipebench: execv(%s) failed\n", mpirun.c_str());
    _exit(static_cast<int>(ExitCode::kRuntimeError));
  }
  if (g_mpirun < 0) {
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    throw Error("fork() for " + mpirun + " failed");
  }
  struct sigaction sa {};
  sa.sa_handler = forward_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  ::close(err_pipe[1]);
  const bool told = pass_on_standard_error(err_pipe[0]);
  int status = 0;
  while (waitpid(g_mpirun, &status, 0) < 0 && errno == EINTR) {
  }
  if (g_user_signal != 0 && !told && stopped_line) {
    std::fprintf(stderr, "pipebench: %s\n", stopped_line(g_user_signal).c_str());
  }
  const int mpirun_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::exit(g_user_signal != 0 ? 128 + g_user_signal : mpirun_status);
}

}  // namespace pipebench
