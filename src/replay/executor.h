// SPDX-License-Identifier: Apache-2.0
// Executor: runs one rank's Program (the simulator's task list, sim/task.h) on a ReplayRuntime, in
// Megatron's order with its blocking rules, and turns the measured task spans into the rank's
// compute, communication-busy and idle time.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/replay_runtime.h"
#include "schedule/schedule_id.h"
#include "sim/task.h"

namespace pipebench {

struct ReplayCollective {
  ReplayCollCall call;
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
  std::vector<int> group_ids;  // per collective: the runtime's group (filled by register_groups)
};

struct RankIteration {
  std::int64_t iteration_ns = 0, compute_ns = 0, comm_busy_ns = 0, idle_ns = 0;
  // Collective calls issued, per ReplayCollOp (index = the enum's value; a task of count n issues n).
  std::array<std::int64_t, kReplayCollOps> collective_calls{};
  std::vector<ReplaySpan> spans;  // per task
};

// Collective over every process: makes the runtime's groups of every distinct group in `all_groups`
// (the same list, in the same order, on every process) and sets job.group_ids.
void register_groups(ReplayRuntime& rt, const std::vector<std::vector<int>>& all_groups, RankJob& job);
// The same with the runtime's ids of all_groups already made (one set of groups for several jobs).
void assign_groups(int rank, const std::vector<std::vector<int>>& all_groups, const std::vector<int>& ids,
                   RankJob& job);

// Runs one iteration. progress (may be null) is set to the index of the task being executed, so a
// watchdog can name it: -1 in the barrier that starts the iteration, the task count once past the last.
[[nodiscard]] RankIteration run_iteration(ReplayRuntime& rt, const RankJob& job, std::atomic<std::int64_t>* progress);

// Compute, union of communication spans, and idle (neither) from the spans, for tests and traces.
[[nodiscard]] RankIteration summarise(const Program& program, std::vector<ReplaySpan> spans, std::int64_t iteration_ns);

}  // namespace pipebench
