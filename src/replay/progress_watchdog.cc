// SPDX-License-Identifier: Apache-2.0
// The replay's watchdog message.
#include "replay/progress_watchdog.h"

#include <cstdio>
#include <set>
#include <vector>

namespace pipebench {
namespace {

// "rank 1" or "ranks 0, 2, 3" (at most 8 named, then how many in all).
std::string rank_list(const std::set<int>& ranks) {
  constexpr std::size_t kNamed = 8;
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  std::size_t n = 0;
  for (const int r : ranks) {
    if (n == kNamed) return out + ", ... (" + std::to_string(ranks.size()) + " in all)";
    out += (n++ ? ", " : "") + std::to_string(r);
  }
  return out;
}

std::set<int> others(int rank, int world_size) {
  std::set<int> out;
  for (int r = 0; r < world_size; ++r) {
    if (r != rank) out.insert(r);
  }
  return out;
}

// A P2P call's ops: "receives 4096 B from rank 1, sends 4096 B to rank 3".
std::string p2p_wait(const RankJob& job, const Task& t) {
  std::set<int> peers;
  std::string what;
  for (std::uint32_t k = t.first_op; k < t.first_op + t.nops && k < job.program.ops.size(); ++k) {
    const P2POp& op = job.program.ops[k];
    const auto pp = static_cast<std::size_t>(op.peer);
    const int peer = pp < job.pipeline_ranks.size() ? job.pipeline_ranks[pp] : op.peer;
    peers.insert(peer);
    what += (what.empty() ? "" : ", ") + std::string(op.send ? "sends " : "receives ") + std::to_string(op.bytes) +
            " B " + (op.send ? "to" : "from") + " rank " + std::to_string(peer);
  }
  if (peers.empty()) return "waits on no rank";
  return "waits on " + rank_list(peers) + " (" + what + ")";
}

}  // namespace

std::string waited_on(const RankJob& job, std::int64_t task, int rank, int world_size) {
  const auto& tasks = job.program.tasks;
  if (task < 0) {
    return "waits on " + rank_list(others(rank, world_size)) + " (the barrier every rank enters to start an iteration)";
  }
  if (static_cast<std::size_t>(task) >= tasks.size()) {
    return "waits on " + rank_list(others(rank, world_size)) + " (the reductions of the iteration's times)";
  }
  const Task& t = tasks[static_cast<std::size_t>(task)];
  switch (t.kind) {
    case Task::Kind::kCompute:
      return "waits on no rank (computing: this rank is the one the others wait for)";
    case Task::Kind::kP2P:
      return p2p_wait(job, t);
    case Task::Kind::kWait:
      // The asynchronous call this wait completes: the latest P2P task before it with its handle.
      for (auto i = static_cast<std::size_t>(task); i-- > 0;) {
        if (tasks[i].kind == Task::Kind::kP2P && tasks[i].handle == t.handle) return p2p_wait(job, tasks[i]);
      }
      return "waits on no rank";
    case Task::Kind::kCollective: {
      const auto c = static_cast<std::size_t>(t.collective);
      if (c >= job.collectives.size()) return "waits on its collective's group";
      const ReplayCollective& coll = job.collectives[c];
      std::set<int> group(coll.group.begin(), coll.group.end());
      group.erase(rank);
      return group.empty() ? "waits on no rank" : "waits on " + rank_list(group) + " (" + coll.label + ")";
    }
  }
  return "waits on no rank";
}

ProgressWatchdog::ProgressWatchdog(double timeout_s, const World& world, const RankJob& job)
    : job_(job), dog_(timeout_s, world, [this, timeout_s, &world](double elapsed_s) {
        return message(timeout_s, world, elapsed_s);
      }) {}

void ProgressWatchdog::start_iteration(int iteration) {
  task_ = kIterationStart;
  iteration_ = iteration;
  dog_.restart();
}

std::string ProgressWatchdog::message(double timeout_s, const World& world, double elapsed_s) const {
  const std::int64_t task = task_.load();
  const auto& tasks = job_.program.tasks;
  std::string where;
  if (task < 0) {
    where = "at its start";
  } else if (static_cast<std::size_t>(task) < tasks.size()) {
    where = "task " + std::to_string(task) + " (" + tasks[static_cast<std::size_t>(task)].label() + ")";
  } else {
    where = "task " + std::to_string(task) + " (end of iteration)";
  }
  const int it = iteration_.load();
  char head[96];
  std::snprintf(head, sizeof head, "-T %g: rank %d made no progress for %.1f s", timeout_s, world.rank(), elapsed_s);
  return std::string(head) + " in schedule " + job_.id.label() + ", " +
         (it < 0 ? "warm-up iteration" : "iteration " + std::to_string(it + 1)) + ", " + where + ": " +
         waited_on(job_, task, world.rank(), world.size());
}

}  // namespace pipebench
