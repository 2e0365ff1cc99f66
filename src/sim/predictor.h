// SPDX-License-Identifier: Apache-2.0
// Predictor: from a plan, a cost model and a compute model, simulate every schedule of the plan on its
// first pipeline group and say which schedule is fastest, by how much, and which link decides it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "megatron/plan.h"
#include "schedule/schedule_id.h"
#include "sim/compute_model.h"
#include "sim/cost_model.h"
#include "sim/simulator.h"

namespace pipebench {

// Which links each transfer between two global ranks crosses (from a topology's GPU-pair paths and
// the rank -> GPU placement). Empty: unknown.
struct PathModel {
  std::map<std::pair<int, int>, std::vector<int>> links;  // (src, dst) global ranks -> link ids
  std::size_t link_count = 0;
  [[nodiscard]] bool empty() const { return links.empty(); }
};

// The links of every transfer between two placed ranks whose GPUs have a path in the topology.
[[nodiscard]] PathModel path_model(const Placement& placement);

// The largest single cost on the rank that ends the iteration last: its compute, its wait for other
// ranks (bubble and dependencies), its exposed P2P transfers, or one collective after the pipeline.
struct DominantCost {
  std::string what;          // "compute", "pipeline bubble", "P2P transfers", or a collective's label
  double ms = 0, share = 0;  // share of the iteration
};

// One pipeline rank of a simulated schedule, in ms and shares of the iteration (what the file keeps of
// the simulation).
struct PredictedRank {
  int rank = 0;  // global
  double compute_ms = 0, exposed_comm_ms = 0, idle_ms = 0;
  double nccl_share = 0;  // the share of the iteration NCCL is busy
  std::int64_t p2p_bytes = 0;
};

// Iterations predict plays back to back for the steady state (SchedulePrediction::steady_ms): the last one is
// the steady state.
inline constexpr int kSteadyIterations = 3;

// One schedule of a prediction. The prediction file (io/prediction_io.h) holds every member but `sim`,
// which is empty when a prediction is read back.
struct SchedulePrediction {
  ScheduleId id;
  bool overlap_p2p = true;
  bool reference = false;  // GPipe: shown for comparison, never the verdict
  // iteration_ms: one iteration from a cold start (every rank starts at 0), to the last rank's end. speedup:
  // 1F1B's compared iteration over this one's (Prediction::compared_ms).
  double iteration_ms = 0, speedup = 1, bubble_ideal = 0, bubble_sim = 0;
  // What separates its iterations, and the steady state: kSteadyIterations played back to back with the
  // optimizer step between them, on the rank that ends the last one last, the time from its end of the one
  // before to its end of the last (sim/simulator.h steady_iteration). 0 in files written before it was
  // recorded (iteration_ms then stands for it).
  StepRule step_rule = StepRule::kSynchronous;
  double steady_ms = 0;
  [[nodiscard]] double steady_or_cold_ms() const { return steady_ms > 0 ? steady_ms : iteration_ms; }
  std::vector<PredictedRank> ranks;  // by pipeline rank
  // Per pipeline rank, the microbatches of activations held at the peak (schedule/activation_memory.h):
  // the memory note of the schedules that split B and W, empty for the others.
  std::vector<double> activations_held;
  DominantCost dominant;  // empty `what` in files written before it was recorded
  SimResult sim;
};

// A term of the model measured from a profile of the job (trace/profile_calibration.h), with where it came
// from: "forward per layer" of rank 2 = 1.91 ms from "rank2.json: 8 passes over 1 iteration".
struct MeasuredTerm {
  std::string term;
  int rank = -1;  // global rank; -1: the job's
  double ms = 0;
  std::string source;
};

// The profiled schedule re-simulated from the terms measured in its own profile: what the model misses.
struct ProfileCheck {
  ScheduleId schedule;
  std::int64_t iterations = 1;
  double measured_ms = 0, simulated_ms = 0;  // the iteration (median over the profiled iterations)
  struct Rank {
    int rank = 0;                                              // global
    double measured_end_ms = 0, simulated_end_ms = 0;          // from the iteration's start
    double measured_compute_ms = 0, simulated_compute_ms = 0;  // passes and optimizer, without the host time
  };
  std::vector<Rank> ranks;  // by pipeline rank
  struct Task {
    int rank = 0;  // global
    std::string task;
    double measured_start_ms = 0, simulated_start_ms = 0;
  };
  std::vector<Task> largest;  // the passes whose start the simulation misses most, largest first
  [[nodiscard]] double error() const { return measured_ms > 0 ? simulated_ms / measured_ms - 1 : 0; }
};

// The prediction ("schema": "pipebench.prediction/1" once written by io/prediction_io.h): predict makes
// it; replay, report, run and trace read it. deciding_pair_ms and deciding_bytes are 0, band is 0 and
// sharing empty in files written before they were recorded.

struct Prediction {
  std::vector<SchedulePrediction> schedules;
  // Which iteration the speed-ups and the verdict compare: the steady state (default: a training job runs
  // thousands of iterations), or the cold one (predict --compare cold).
  bool compares_cold = false;
  [[nodiscard]] double compared_ms(const SchedulePrediction& s) const {
    return compares_cold ? s.iteration_ms : s.steady_or_cold_ms();
  }
  [[nodiscard]] const char* compared_name() const { return compares_cold ? "cold" : "steady-state"; }
  std::string compute_source;
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  double w_share = 0.5;                   // W's part of the backward where a schedule splits B and W
  std::vector<std::string> cost_sources;  // distinct sources used
  // Measured terms: groups that reduce at once and how much slower than alone (sim/shared_resource.h).
  std::vector<Sharing> sharing;
  std::string best, verdict;
  // The verdict's uncertainty (sim/verdict.h): each speed-up is known to +-band (relative); too_close when
  // the best schedule's lead over the next is inside it.
  double band = 0;
  std::string band_source;
  bool too_close = false;
  std::int64_t deciding_bytes = 0;  // the activation size the deciding pair was costed at
  std::vector<int> deciding_pair;   // the slowest pipeline link (global ranks)
  double deciding_pair_ms = 0;      // its cost per activation message
  std::vector<std::pair<int, std::optional<double>>> break_even_gbps;  // per v
  std::vector<std::string> notes;
  std::vector<MeasuredTerm> measured_terms;   // predict --profile: every term taken from the profile
  std::optional<ProfileCheck> profile_check;  // predict --profile: the profiled schedule re-simulated
};

// predict --trace: called once for each schedule with its id and `simulate`, which the sink must call
// once: it runs the schedule's simulation, handing each trace event to `events` as it is made, and
// returns the schedule predicted (without a trace). The traces of all schedules of a large plan take
// gigabytes; streamed so, memory holds none of them.
using TracedSimulation = std::function<const SchedulePrediction&(const TraceEventSink& events)>;
using ScheduleTraceSink = std::function<void(const ScheduleId& id, const TracedSimulation& simulate)>;

// Throws UsageError for missing measurements or an unknown schedule_filter ("1f1b", "interleaved",
// "interleaved:vN", "gpipe"; "" for all). paths: optional topology paths (transfers sharing a link
// compete); shared_path puts every pair on one. schedule_files (schedule/schedule_file.h) are predicted
// beside the filter's schedules, as references. With keep_trace and a trace_sink, the traces go to the
// sink: the schedules come back without them (and without task starts).
// compare_cold: Prediction::compares_cold.
[[nodiscard]] Prediction predict(const Plan& plan, const CostModel& costs, const ComputeModel& compute,
                                 bool shared_path, bool keep_trace, const std::string& schedule_filter,
                                 const PathModel* paths = nullptr, const std::vector<ScheduleId>& schedule_files = {},
                                 const ScheduleTraceSink& trace_sink = {}, bool compare_cold = false);

}  // namespace pipebench
