// SPDX-License-Identifier: Apache-2.0
// The model calibrated from a profile of the job itself (`predict --profile`): each rank's timeline
// (rank_timeline.h) held against the program the schedule generator gives that rank, pass by pass in order,
// and from it every term the simulator needs, as the job really paid it:
// - per rank, the forward and backward time per layer (a pass over its layers; the last stage's pass also holds
//   the output layer, counted by its FLOPs against a layer's: sim/compute_model.h output_layer_ratio), and W's
//   share where the profiled schedule runs W apart;
// - per rank, the host time of a pass: the gap between two passes where the rank waited for nobody (the
//   producer of its next input had finished before its previous pass did);
// - the P2P transfer: from the end of the producing pass on one rank to the start of the consuming pass on the
//   next, where the consumer waited for it, less the producer's host time (the clocks of one host agree:
//   Kineto's baseTimeNanoseconds);
// - each collective after the pipeline the plan lists and the profile shows: the shortest of its members'
//   times (the last member to arrive waits for nobody);
// - per rank, the optimizer step (torch.optim's Optimizer.* ranges, else what follows the last pipeline call).
// Per-layer times are means over the passes (an iteration is a sum of passes); host times, transfers and
// collectives medians (a few waits misread as host time must not move them). What the profile does not show (a
// collective the job does not run) costs nothing and is named in a note.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "megatron/plan.h"
#include "sim/compute_model.h"
#include "sim/cost_model.h"
#include "sim/predictor.h"
#include "trace/rank_timeline.h"

namespace pipebench {

struct CalibrationOptions {
  std::string schedule;           // --profile-schedule: the schedule that ran; "": the one whose passes match
  std::optional<double> w_share;  // --w-share: W's part of the backward, where the profile does not split it
};

// A pass as the profile shows it, matched to its task: times on the job clock, from the iteration's start.
struct MeasuredPass {
  std::string task;  // "F mb3 c0"
  double start_ms = 0, ms = 0;
};

struct Calibration {
  // The plan as the job runs it: the plan given, less the collectives after the pipeline that the profile does
  // not show (a job that is not Megatron reduces no embedding, a pipeline without data parallelism no
  // gradients). predict simulates this one.
  Plan plan;
  ScheduleId schedule;
  std::string schedule_reason;  // "--profile-schedule", "its passes match"
  std::int64_t iterations = 1;
  std::vector<int> ranks;  // global rank of each pipeline rank
  ComputeModel compute;    // per rank
  std::shared_ptr<CostModel> costs;
  std::vector<MeasuredTerm> terms;
  std::vector<std::string> notes;
  // The profiled iteration, for the check: median over iterations.
  double iteration_ms = 0;
  std::vector<double> end_ms, compute_ms;         // per pipeline rank
  std::vector<std::vector<MeasuredPass>> passes;  // per pipeline rank, in program order (first iteration)
  double spread = 0;                              // (max - min) / median of the iterations; 0 with one
};

// timelines: one per rank file, as read. Throws UsageError naming the file and the mismatch for a profile
// that does not fit the plan: another world size, a rank missing or given twice, no complete iteration, or
// passes that are not the schedule's (another schedule, another number of microbatches).
[[nodiscard]] Calibration calibrate(const Plan& plan, const std::vector<RankTimeline>& timelines,
                                    const CalibrationOptions& options);

// The profiled schedule's simulation (predict of calibration.schedule with its trace kept) against the
// profile: the iteration, each rank's end and compute, the passes whose start it misses most.
[[nodiscard]] ProfileCheck check_profiled(const Calibration& calibration, const SchedulePrediction& simulated);

}  // namespace pipebench
