// SPDX-License-Identifier: Apache-2.0
#include "backend/mpi_wait.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "launch/mpi_check.h"

namespace pipebench {

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

MpiWaitPolicy::MpiWaitPolicy(const World& world) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  sharing_cores_ = cpus > 0 && world.local_size() > cpus;
}

bool MpiWaitPolicy::test(MPI_Request* requests, int n, const std::string& where) {
  int done = 0;
  check_mpi(MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE), "MPI_Testall", where);
  return done != 0;
}

void MpiWaitPolicy::wait(MPI_Request* requests, int n, const std::string& where) const {
  const std::int64_t start = monotonic_ns();
  while (!test(requests, n, where)) {
    if (!sharing_cores_) continue;
    if (monotonic_ns() - start < kSpinNs) {
      sched_yield();
      continue;
    }
    const timespec ts{0, kPollNs};
    nanosleep(&ts, nullptr);
  }
}

std::string MpiWaitPolicy::description(const World& world) const {
  if (!sharing_cores_) return "";
  return "poll and yield: " + std::to_string(world.local_size()) + " ranks on " +
         std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " CPUs";
}

}  // namespace pipebench
