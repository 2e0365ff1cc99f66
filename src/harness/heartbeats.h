// SPDX-License-Identifier: Apache-2.0
// Heartbeats: which ranks of the job still run, so that a point's watchdog names the rank that stopped
// (SIGSTOP, a debugger, a swapped-out node) rather than itself, a rank that was only waiting for it.
//
// Why files and not MPI: World initialises MPI at MPI_THREAD_FUNNELED (launch/world.cc), so only the main
// thread may call MPI, and the main thread is the one stuck in the measured call; asking for
// MPI_THREAD_MULTIPLE would put a lock into every MPI call the mpi backend measures. So each process
// runs one thread that touches its own file in a folder of the node's temporary directory ten times a
// second; a rank whose watchdog fires compares the files' modification times before and after a grace of
// kAnswerGraceSeconds: a rank whose file moved answered, one whose file stood still stopped answering
// (a stopped process's threads stop with it). Files are seen only by the ranks of one host, so ranks on
// other hosts are named as not checked, never as stopped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launch/world.h"

namespace pipebench {

// How long a firing watchdog waits for the others' heartbeats: ten beats of 100 ms and room for a loaded
// machine (the ranks of one job often oversubscribe its cores).
inline constexpr double kAnswerGraceSeconds = 1.5;

enum class Answer { kAnswered, kSilent, kOtherHost };

// Each rank's answer from its heartbeat (its file's modification time in ns, -1: no file) before and
// after the grace; ranks whose host is not `host` are kOtherHost.
[[nodiscard]] std::vector<Answer> answers(const std::vector<std::int64_t>& before,
                                          const std::vector<std::int64_t>& after, const std::vector<std::string>& hosts,
                                          const std::string& host);

// What follows "LABEL did not finish within T s": ": rank 1 (host vm) stopped answering; ranks 0, 2, 3
// answered (alive, waiting or working in the point)", and "; ranks 4, 5 on other hosts not checked" when
// some are; when no rank was silent, " on WHERE; no rank of host vm stopped answering (the point is slow or
// hung)" (WHERE: "rank R on host H", the rank that speaks).
[[nodiscard]] std::string who_stopped(const std::vector<Answer>& answers, const std::string& host,
                                      const std::string& where);

// The rank that speaks for the job: the lowest that answered (-1: none). The others wait, so that one
// line names the stopped ranks rather than one line per waiting rank.
[[nodiscard]] int speaker(const std::vector<Answer>& answers);

class Heartbeats {
 public:
  // Collective over the world (rank 0 names the folder, every rank gives its host); null when the world
  // has one process or the folder cannot be made (the watchdog then names only its own rank).
  static std::unique_ptr<Heartbeats> create(const World& world);
  ~Heartbeats();
  Heartbeats(const Heartbeats&) = delete;
  Heartbeats& operator=(const Heartbeats&) = delete;

  // Every rank's heartbeat now (ns; -1: none or on another host).
  [[nodiscard]] std::vector<std::int64_t> read() const;
  [[nodiscard]] const std::vector<std::string>& hosts() const { return hosts_; }
  // Removes this host's heartbeat files and the folder: the speaker calls it just before MPI_Abort, which
  // ends every process before its destructor could.
  void remove_files() const;
  // Test hook: this rank stops beating, as a stopped process would.
  void hold() { held_ = true; }

 private:
  Heartbeats(std::string folder, std::vector<std::string> hosts, std::string host, int rank);
  [[nodiscard]] std::string file_of(int rank) const;
  void beat_loop();

  std::string folder_;
  std::vector<std::string> hosts_;
  std::string host_;
  int rank_;
  std::atomic<bool> held_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: it reads the members above
};

}  // namespace pipebench
