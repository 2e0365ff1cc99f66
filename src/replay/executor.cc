// SPDX-License-Identifier: Apache-2.0
// Executor: one task after another, exactly as the schedule generator ordered them.
#include "replay/executor.h"

#include <algorithm>

#include "core/error.h"

namespace pipebench {

void register_groups(ReplayRuntime& rt, const std::vector<std::vector<int>>& all_groups, RankJob& job) {
  std::vector<int> ids;
  ids.reserve(all_groups.size());
  for (const auto& g : all_groups) ids.push_back(rt.add_group(g));
  assign_groups(rt.rank(), all_groups, ids, job);
}

void assign_groups(int rank, const std::vector<std::vector<int>>& all_groups, const std::vector<int>& ids,
                   RankJob& job) {
  job.group_ids.clear();
  for (const auto& c : job.collectives) {
    const auto it = std::find(all_groups.begin(), all_groups.end(), c.group);
    if (it == all_groups.end()) throw Error("replay: collective " + c.label + " has a group that was not registered");
    const int id = ids[static_cast<std::size_t>(it - all_groups.begin())];
    if (id < 0) throw Error("replay: rank " + std::to_string(rank) + " is not a member of the group of " + c.label);
    job.group_ids.push_back(id);
  }
}

RankIteration run_iteration(ReplayRuntime& rt, const RankJob& job, std::atomic<std::int64_t>* progress) {
  const auto& prog = job.program;
  std::vector<ReplayP2P> ops;
  std::array<std::int64_t, kReplayCollOps> calls{};
  // -1 while in the barrier that starts the iteration (a watchdog names it rather than task 0).
  if (progress) progress->store(-1, std::memory_order_relaxed);
  rt.begin_iteration(prog.tasks.size());
  for (std::size_t i = 0; i < prog.tasks.size(); ++i) {
    if (progress) progress->store(static_cast<std::int64_t>(i), std::memory_order_relaxed);
    const Task& t = prog.tasks[i];
    switch (t.kind) {
      case Task::Kind::kCompute:
        rt.compute(i, t.duration);
        break;
      case Task::Kind::kP2P: {
        ops.clear();
        for (std::uint32_t k = t.first_op; k < t.first_op + t.nops; ++k) {
          const P2POp& op = prog.ops[k];
          ops.push_back({op.send, job.pipeline_ranks.at(static_cast<std::size_t>(op.peer)), op.bytes, op.tag});
        }
        rt.p2p(i, ops.data(), ops.size(), t.blocking, t.handle);
        break;
      }
      case Task::Kind::kWait:
        rt.wait(i, t.handle);
        break;
      case Task::Kind::kCollective: {
        const auto c = static_cast<std::size_t>(t.collective);
        const ReplayCollective& coll = job.collectives.at(c);
        rt.collective(i, job.group_ids.at(c), coll.call);
        calls.at(static_cast<std::size_t>(coll.call.op)) += coll.call.count;
        break;
      }
    }
  }
  if (progress) progress->store(static_cast<std::int64_t>(prog.tasks.size()), std::memory_order_relaxed);
  std::int64_t iteration_ns = 0;
  std::vector<ReplaySpan> spans = rt.end_iteration(&iteration_ns);
  RankIteration out = summarise(prog, std::move(spans), iteration_ns);
  out.collective_calls = calls;
  return out;
}

namespace {

// Length of the union of intervals (sorted in place).
std::int64_t union_ns(std::vector<ReplaySpan>& v) {
  std::sort(v.begin(), v.end(), [](const ReplaySpan& a, const ReplaySpan& b) { return a.start_ns < b.start_ns; });
  std::int64_t total = 0, cur_start = 0, cur_end = -1;
  for (const auto& s : v) {
    if (s.end_ns <= s.start_ns) continue;
    if (s.start_ns > cur_end) {
      if (cur_end > cur_start) total += cur_end - cur_start;
      cur_start = s.start_ns;
      cur_end = s.end_ns;
    } else {
      cur_end = std::max(cur_end, s.end_ns);
    }
  }
  if (cur_end > cur_start) total += cur_end - cur_start;
  return total;
}

}  // namespace

RankIteration summarise(const Program& program, std::vector<ReplaySpan> spans, std::int64_t iteration_ns) {
  RankIteration out;
  out.iteration_ns = iteration_ns;
  std::vector<ReplaySpan> comm, busy;
  for (std::size_t i = 0; i < program.tasks.size() && i < spans.size(); ++i) {
    const Task& t = program.tasks[i];
    const ReplaySpan& s = spans[i];
    if (t.kind == Task::Kind::kCompute) {
      out.compute_ns += s.end_ns - s.start_ns;
      busy.push_back(s);
    } else if (t.kind == Task::Kind::kP2P || t.kind == Task::Kind::kCollective) {
      comm.push_back(s);  // a wait lies inside its call's span
      busy.push_back(s);
    }
  }
  out.comm_busy_ns = union_ns(comm);
  out.idle_ns = std::max<std::int64_t>(0, iteration_ns - union_ns(busy));
  out.spans = std::move(spans);
  return out;
}

}  // namespace pipebench
