// SPDX-License-Identifier: Apache-2.0
// Executor: runs one rank's Program (the simulator's task list, sim/task.h) on a ReplayRuntime, in
// Megatron's order with its blocking rules, and turns the measured task spans into the rank's
// compute, communication-busy and idle time. Every call is issued by the op bench times it with
// (Op::issue: the transfer op for P2P, the plan's op for a collective) on ReplayComms' communicators.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend/replay_runtime.h"
#include "collectives/op.h"
#include "replay/replay_comms.h"
#include "schedule/schedule_id.h"
#include "schedule/schedule_registry.h"
#include "sim/task.h"

namespace pipebench {

// One collective as the plan issues it and bench --plan times it: the registry's op, the message's element
// type and whole size in bytes (Op::sizing splits it on the group as bench does: all_gather's gathered
// result, reduce_scatter's input), repeated count times; reduction and placement by plan_call
// (collectives/plan_call.h).
struct ReplayCollective {
  const Op* op = nullptr;
  DType dtype = DType::kFloat;
  std::int64_t bytes = 0;
  int count = 1;
  std::vector<int> group;  // global ranks, sorted
  std::string label;
};

// What one rank executes for one schedule. Program P2P peers are pipeline ranks; pipeline_ranks maps
// them to global ranks. Task::collective indexes `collectives`.
struct RankJob {
  ScheduleId id;
  bool reference = false;
  int pipeline_rank = 0;
  std::vector<int> pipeline_ranks;
  Program program;
  std::vector<ReplayCollective> collectives;
  std::vector<int> group_ids;  // per collective: its ReplayComms group (filled by register_groups)
  // The element type of the P2P messages (the plan's activations); a call whose bytes it does not divide
  // moves bytes.
  DType p2p_dtype = DType::kUint8;
  // What separates its iterations (schedule/schedule_registry.h): a barrier before each (Megatron's synchronous
  // step), or none (post-validation: run back to back, its program without the step's checks).
  StepRule step_rule = StepRule::kSynchronous;
};

struct RankIteration {
  std::int64_t iteration_ns = 0, compute_ns = 0, comm_busy_ns = 0, idle_ns = 0;
  // The iteration's end on this rank since the last barrier that began one (ReplayRuntime::origin_since_barrier_ns):
  // with iterations back to back, where each ends on one timeline.
  std::int64_t end_since_barrier_ns = 0;
  // Collective calls issued, per op name (a task of count n issues n).
  std::map<std::string, std::int64_t> collective_calls;
  std::vector<ReplaySpan> spans;  // per task
};

// Collective over every process: makes the communicators of every distinct group in `all_groups`
// (the same list, in the same order, on every process) and sets job.group_ids.
void register_groups(ReplayComms& comms, const std::vector<std::vector<int>>& all_groups, RankJob& job);
// The same with the ids of all_groups already made (one set of groups for several jobs).
void assign_groups(int rank, const std::vector<std::vector<int>>& all_groups, const std::vector<int>& ids,
                   RankJob& job);

// Runs one iteration. progress (may be null) is set to the index of the task being executed, so a
// watchdog can name it: -1 in the barrier that starts the iteration, the task count once past the last.
// after_barrier: it begins with a barrier over every process (else at once: ReplayRuntime::continue_iteration).
// REQUIRES: comms holds job's groups (register_groups).
[[nodiscard]] RankIteration run_iteration(ReplayRuntime& rt, ReplayComms& comms, const RankJob& job,
                                          std::atomic<std::int64_t>* progress, bool after_barrier = true);

// Compute, union of communication spans, and idle (neither) from the spans, for tests and traces.
[[nodiscard]] RankIteration summarise(const Program& program, std::vector<ReplaySpan> spans, std::int64_t iteration_ns);

}  // namespace pipebench
