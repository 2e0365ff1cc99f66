// SPDX-License-Identifier: Apache-2.0
// replay_plan: every schedule of a plan executed on the real ranks (one warm-up iteration, then N
// timed ones), measured per rank and reduced to rank 0, with the prediction beside it. The entry
// point `pipebench replay` and `pipebench run` share.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/replay_runtime.h"
#include "launch/world.h"
#include "megatron/plan.h"
#include "replay/task_drift.h"
#include "schedule/schedule_id.h"
#include "sim/predictor.h"
#include "sim/verdict.h"

namespace pipebench {

struct ReplayRankStats {
  int rank = 0;  // global
  double compute_ms = 0, comm_busy_ms = 0, idle_ms = 0, comm_share = 0;
  std::optional<double> predicted_comm_share;
};

struct ScheduleReplay {
  ScheduleId id;
  bool reference = false;
  // Synchronous: a barrier before each iteration, which is timed from it to the last rank's end. Post-validation:
  // the iterations back to back, each timed on the rank that ends it last from its end of the one before.
  StepRule step_rule = StepRule::kSynchronous;
  std::vector<double> iteration_ms;  // finished timed iterations (as step_rule says)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::optional<double> predicted_ms;
  std::vector<ReplayRankStats> per_rank;          // medians over iterations, every rank
  std::vector<std::vector<TraceEvent>> timeline;  // last iteration, per rank (rank 0 only; empty unless asked)
  // The last iteration held task by task against the prediction's simulation (rank 0; empty without a
  // prediction): where each rank's replay drifted from the model.
  std::vector<RankDrift> drift;
};

struct ReplayResult {
  std::string backend, compute;
  int world = 0, iterations = 0;
  std::vector<ScheduleReplay> schedules;
  std::string measured_fastest, predicted_fastest;  // "1f1b", "interleaved:v2"; "" when unknown
  // Whether every planned schedule has all its iterations: false in the files written while the replay
  // runs (a replay that dies leaves one that says so), true in the last one.
  bool complete = true;
  std::vector<std::string> planned;     // every schedule's key, in order (empty in hand-made results)
  std::vector<std::string> incomplete;  // read back: planned schedules without all their iterations
};

// Timed iterations per schedule (replay --iterations, run --replay-iterations): replay.json keeps every
// iteration's time and is written again after each iteration, so the count bounds both the file and the
// work of writing it; 1000 iterations of a 1 s training step are a quarter of an hour per schedule, where
// Megatron's own timers average over tens.
inline constexpr int kMaxReplayIterations = 1000;

struct ReplayOptions {
  std::string schedule = "all";
  std::vector<ScheduleId> schedule_files;  // --schedule-file: replayed after `schedule`'s
  ComputeOptions compute;
  std::optional<ComputeModel> compute_model;  // in place of `compute`: a profile's per-rank compute (run --profile)
  std::string compute_kind = "host-sleep";    // for the JSON: host-sleep | spin | gemm
  int iterations = 5;
  double timeout_s = -1;  // -1: a few times the predicted (else planned compute) iteration; 0: off
  bool keep_timeline = false;
};

// Collective over every process; world.size() must equal the plan's world. backend: make_backend's of
// the world, one rank per process, that rt was made with; the calls are issued on it and on its splits
// (replay/replay_comms.h). prediction (rank 0's, may be null) supplies predicted times and shares.
// after_iteration runs on rank 0 after every finished timed iteration with the result so far (to write
// the JSON). Results are complete on rank 0 only.
[[nodiscard]] ReplayResult replay_plan(const World& world, Backend& backend, ReplayRuntime& rt, const Plan& plan,
                                       const ReplayOptions& options, const Prediction* prediction,
                                       const std::function<void(const ReplayResult&)>& after_iteration);

// The replay held against the prediction it carries (sim/verdict.h compare_with_replay, references
// included): band and band_source are the prediction's (decide_verdict).
[[nodiscard]] Agreement replay_agreement(const ReplayResult& r, double band, const std::string& band_source);

// What a replay that stopped before its end ("complete": false) did not measure in full; "" when complete.
[[nodiscard]] std::string replay_incomplete_text(const ReplayResult& r);

// The replay's own verdict: measured and predicted fastest and how it ran, after its incomplete text.
[[nodiscard]] std::string replay_verdict_text(const ReplayResult& r);

}  // namespace pipebench
