// SPDX-License-Identifier: Apache-2.0
// Task by task, where a replayed iteration lost (or gained) time against the simulation of the same
// schedule: the waits and costs the model does not have.
//
// Both sides say when a rank reached each of its tasks: the replay's measured spans (the executor's
// start of each task, relative to the rank's iteration start) and the simulator's task starts
// (SimResult::task_starts). Tasks are matched by label and occurrence ("F mb3 c1", the 2nd
// "send_forward_recv_forward", "dp grads, chunk 0"). A rank's drift at a task is its replayed start
// minus its predicted start; the drift a task *adds* is the drift at the next matched task (or at the
// rank's end) minus the drift at this one: the time from reaching this task to reaching the next that
// the model did not foresee, waits included. The added drifts of a rank sum to its end drift minus its
// drift at the first task, so they say exactly where its error comes from. Replayed tasks the
// simulation does not have (a plan's in-schedule collectives, which the model folds into compute) fall
// into the preceding matched task's share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace pipebench {

struct TaskDriftItem {
  std::string task;  // label, with its occurrence when it repeats: "send_forward_recv_forward #3"
  std::string kind;  // compute, p2p, wait, collective
  double added_ms = 0;
};

struct RankDrift {
  int rank = 0;                              // global rank of the replay
  int pipeline_rank = 0;                     // the simulated rank it is held against
  double end_drift_ms = 0;                   // replayed minus predicted end of the rank's iteration
  std::map<std::string, double> by_kind_ms;  // added drift per task kind
  std::vector<TaskDriftItem> largest;        // the tasks that added the most, largest first (at most kLargest)
  int matched = 0, unmatched = 0;            // replayed tasks found / not found in the simulation
};

inline constexpr std::size_t kLargestDrifts = 3;

// replayed[r]: global rank r's last iteration in task order (track "compute", "send", "recv",
// "collectives"; times in ns from the rank's iteration start). pipeline_rank_of[r]: the simulated rank
// for global rank r (-1: not simulated, skipped). Ranks whose simulation has no task starts are skipped.
[[nodiscard]] std::vector<RankDrift> task_drift(const std::vector<std::vector<TraceEvent>>& replayed,
                                                const SimResult& predicted, const std::vector<int>& pipeline_rank_of);

// The rank whose iteration ended latest against the model (largest end drift); nullptr when none.
[[nodiscard]] const RankDrift* most_drifted(const std::vector<RankDrift>& drifts);

}  // namespace pipebench
