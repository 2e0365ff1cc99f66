// SPDX-License-Identifier: Apache-2.0
// Watchdog: turns a hang into an error. A thread checks ten times a second how long the watched work has
// run since it started (or since restart()); past the timeout it prints what hung, where, and aborts the
// whole job (MPI_Abort) rather than let the other ranks wait forever in a collective; a point's line names
// the ranks that stopped answering (harness/heartbeats.h), not the rank that waited for them. One mechanism for
// the measured points (-T of bench, pairs, run) and the replayed iterations (replay/progress_watchdog.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "harness/heartbeats.h"
#include "launch/world.h"

namespace pipebench {

// The default -T of a measured point, from what it is expected to take: ten times the time of its
// `ops` operations at 1 GB/s with 1 ms of latency each (slower than the slowest published case we know:
// 4 RTX 3090 on PCIe links trained at Gen1 x16 reached 1.17 GB/s of all_reduce bus bandwidth), and never
// under two minutes (start-up, communicator set-up, a loaded machine).
[[nodiscard]] double default_point_timeout_s(std::uint64_t size_bytes, std::int64_t ops);

// The timeout in effect: timeout_s as given when >= 0 (0: none), else the default above.
[[nodiscard]] double point_timeout_s(double timeout_s, std::uint64_t size_bytes, std::int64_t ops);

class Watchdog {
 public:
  // What hung, given the seconds it has run; the watchdog adds "pipebench: " and "; aborting the job".
  using Message = std::function<std::string(double elapsed_s)>;

  // timeout_s <= 0: disarmed, no thread.
  Watchdog(double timeout_s, const World& world, Message message);
  // A measured point: "-T T: LABEL did not finish within T s on rank R on host H". With heartbeats (they
  // outlive the watchdog), it first waits kAnswerGraceSeconds for the other ranks' heartbeats and names
  // the ranks that stopped answering instead: "-T T: LABEL did not finish within T s: rank 1 (host H)
  // stopped answering; ranks 0, 2, 3 answered (...)", or, when none was silent, "... on rank R on host H; no
  // rank of host H stopped answering (...)"; the lowest rank that answered speaks, the others wait.
  Watchdog(double timeout_s, const World& world, const std::string& label, const Heartbeats* beats = nullptr);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // The clock starts again (a new iteration of the watched work).
  void restart();

 private:
  void watch(double timeout_s, const World& world);

  Message message_;
  std::atomic<std::int64_t> start_ns_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace pipebench
