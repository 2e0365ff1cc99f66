// SPDX-License-Identifier: Apache-2.0
// Executor: one task after another, exactly as the schedule generator ordered them.
#include "replay/executor.h"

#include <algorithm>

#include "collectives/plan_call.h"
#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {

void register_groups(ReplayComms& comms, const std::vector<std::vector<int>>& all_groups, RankJob& job) {
  std::vector<int> ids;
  ids.reserve(all_groups.size());
  for (const auto& g : all_groups) ids.push_back(comms.add_group(g));
  assign_groups(comms.rank(), all_groups, ids, job);
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

namespace {

// One P2P call as the transfer op issues it for bench (collectives/pair.cc): this rank's sends and
// receives as pairs of world ranks, one issue per message size (Megatron's calls have one), all in the
// call's group. The sizings and pairs are kept here for the issue, which runs inside the runtime's group.
class P2PCall {
 public:
  P2PCall(const RankJob& job, const Task& t, int me, int nranks) : op_(OpRegistry::instance().transfer_op()) {
    dtype_ = job.p2p_dtype;
    for (std::uint32_t k = t.first_op; k < t.first_op + t.nops; ++k) {
      const P2POp& op = job.program.ops[k];
      if (op.bytes % static_cast<std::int64_t>(dtype_size(dtype_)) != 0) dtype_ = DType::kUint8;  // then stays
      const int peer = job.pipeline_ranks.at(static_cast<std::size_t>(op.peer));
      auto it = std::find_if(parts_.begin(), parts_.end(), [&](const Part& p) { return p.bytes == op.bytes; });
      if (it == parts_.end()) it = parts_.insert(parts_.end(), Part{op.bytes, {}, {}});
      it->params.pairs.push_back(op.send ? RankPair{me, peer} : RankPair{peer, me});
    }
    for (auto& p : parts_) {
      p.sizing = op_.sizing(static_cast<std::size_t>(p.bytes), dtype_size(dtype_), nranks, p.params);
      send_bytes_ = std::max(send_bytes_, p.sizing.send_bytes);
      recv_bytes_ = std::max(recv_bytes_, p.sizing.recv_bytes);
    }
  }
  void post(ReplayRuntime& rt, Backend& comm, std::size_t task, const Task& t) const {
    const Buffers& buffers = rt.buffers(send_bytes_, recv_bytes_);
    const auto issue = [&] {
      for (const auto& p : parts_) op_.issue(comm, 0, {buffers, p.sizing, dtype_, RedOp::kNone, false, p.params});
    };
    rt.p2p(task, comm, issue, t.blocking, t.handle);
  }

 private:
  struct Part {
    std::int64_t bytes = 0;
    OpParams params;
    Sizing sizing;
  };
  const Op& op_;
  DType dtype_ = DType::kUint8;
  std::vector<Part> parts_;
  std::size_t send_bytes_ = 0, recv_bytes_ = 0;
};

// A collective as bench --plan times it: Op::sizing on the group, plan_call's reduction and placement,
// the default params (a broadcast's root 0: Megatron broadcasts from the group's first rank).
void post_collective(ReplayRuntime& rt, Backend& comm, std::size_t task, const ReplayCollective& c) {
  const OpParams params;
  const Sizing sizing = c.op->sizing(static_cast<std::size_t>(c.bytes), dtype_size(c.dtype), comm.nranks(), params);
  const PlanCall call = plan_call(*c.op);
  const CallArgs args{
      rt.buffers(sizing.send_bytes, sizing.recv_bytes), sizing, c.dtype, call.redop, call.in_place, params};
  rt.collective(
      task, comm, [&] { c.op->issue(comm, 0, args); }, c.count);
}

}  // namespace

RankIteration run_iteration(ReplayRuntime& rt, ReplayComms& comms, const RankJob& job,
                            std::atomic<std::int64_t>* progress, bool after_barrier) {
  const auto& prog = job.program;
  std::map<std::string, std::int64_t> calls;
  // -1 while in the barrier that starts the iteration (a watchdog names it rather than task 0).
  if (progress) progress->store(-1, std::memory_order_relaxed);
  if (after_barrier) {
    rt.begin_iteration(prog.tasks.size());
  } else {
    rt.continue_iteration(prog.tasks.size());
  }
  for (std::size_t i = 0; i < prog.tasks.size(); ++i) {
    if (progress) progress->store(static_cast<std::int64_t>(i), std::memory_order_relaxed);
    const Task& t = prog.tasks[i];
    switch (t.kind) {
      case Task::Kind::kCompute:
        rt.compute(i, t.duration);
        break;
      case Task::Kind::kP2P:
        P2PCall(job, t, comms.rank(), comms.world().nranks()).post(rt, comms.world(), i, t);
        break;
      case Task::Kind::kWait:
        rt.wait(i, t.handle);
        break;
      case Task::Kind::kCollective: {
        const auto c = static_cast<std::size_t>(t.collective);
        const ReplayCollective& coll = job.collectives.at(c);
        post_collective(rt, comms.group(job.group_ids.at(c)), i, coll);
        calls[std::string(coll.op->name())] += coll.count;
        break;
      }
    }
  }
  if (progress) progress->store(static_cast<std::int64_t>(prog.tasks.size()), std::memory_order_relaxed);
  std::int64_t iteration_ns = 0;
  std::vector<ReplaySpan> spans = rt.end_iteration(&iteration_ns);
  RankIteration out = summarise(prog, std::move(spans), iteration_ns);
  out.end_since_barrier_ns = rt.origin_since_barrier_ns() + iteration_ns;
  out.collective_calls = std::move(calls);
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
