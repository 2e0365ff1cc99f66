// SPDX-License-Identifier: Apache-2.0
// From a plan, one of its schedules and a compute model: what the first pipeline group does in one
// iteration. Shared by the predictor (which simulates it) and anything that executes the same task
// lists on real ranks: the schedule spec and programs, and per pipeline rank the plan's messages that
// run inside the schedule (TP/CP/... collectives) and after it (DP gradients, embedding, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "megatron/plan.h"
#include "sim/compute_model.h"
#include "sim/cost_model.h"
#include "sim/schedules.h"

namespace pipebench {

struct CostedMessage {
  PlanMessage message;
  double ms = 0;  // per iteration: the cost model's time x message.count
};

struct ScheduleBuild {
  std::vector<int> ranks;  // pipeline rank -> global rank (the plan's first pipeline group)
  // Compute per rank and chunk WITHOUT the in-schedule collectives; GPipe, 1F1B or interleaved by name.
  ScheduleSpec spec;
  std::vector<double> inside_comm_ms;              // per pipeline rank: ms per iteration of `inside`
  std::vector<double> inside_forward_ms;           // per pipeline rank: the part of it issued in forward passes
  std::vector<std::vector<CostedMessage>> inside;  // per pipeline rank: collectives inside the schedule
  std::vector<std::vector<CostedMessage>> after;   // per pipeline rank: collectives after the pipeline
  std::vector<Program> programs;                   // generate_schedule of spec (or of the folded spec)
  std::set<std::string> cost_sources;              // of the collectives' costs
};

// Why schedule s of the plan is too large to simulate: "" when it is not; else its tasks, bounded before
// anything is built, would pass kMaxSimTasks (sim/task.h). build_schedule throws UsageError with this text.
[[nodiscard]] std::string task_limit_problem(const Plan& plan, const Schedule& s);

// costs prices the collectives (the cost model's errors propagate). fold: the programs' compute steps
// carry each rank's in-schedule collectives, the forward calls' time spread over its forward steps and the
// backward and recomputed-forward calls' over its backward steps (the plan's PassCalls, as the replay issues
// them): the predictor's stand-in for collectives it does not simulate one by one; without fold the programs
// are those of `spec` (for executing the collectives for real).
[[nodiscard]] ScheduleBuild build_schedule(const Plan& plan, const Schedule& schedule, const ComputeModel& compute,
                                           const CostModel& costs, bool fold);
// The same build with its programs left empty: each rank's program goes to `take` (rank order, with the build
// so far: everything but the programs) as soon as it is generated.
[[nodiscard]] ScheduleBuild build_schedule(
    const Plan& plan, const Schedule& schedule, const ComputeModel& compute, const CostModel& costs, bool fold,
    const std::function<void(const ScheduleBuild& build, int rank, Program& program)>& take);

// A send never holds its rank: every call's sends are posted apart, never waited for, and its receives keep the
// call's wait (PyTorch pipelining waits for its sends late, most at the end of the step; Megatron's batched calls
// wait for every op). build_schedule applies it where the compute model says sends do not block.
void release_sends(Program& program);

// Ends a rank's program, after its collectives: the optimizer step of optimizer_ms (none at 0).
void add_optimizer_step(Program& program, double optimizer_ms);

}  // namespace pipebench
