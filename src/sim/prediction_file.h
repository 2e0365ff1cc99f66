// SPDX-License-Identifier: Apache-2.0
// The prediction as its file holds it ("schema": "pipebench.prediction/1", `predict --json`): what trace
// and report read back. io/prediction_io.h converts it to and from JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedule/schedule_id.h"
#include "sim/predictor.h"

namespace pipebench {

// The file's content: a Prediction without the simulation's internals (times in ms, shares).
struct PredictedRank {
  int rank = 0;
  double compute_ms = 0, exposed_comm_ms = 0, idle_ms = 0, nccl_share = 0;
  std::int64_t p2p_bytes = 0;
};

struct PredictedSchedule {
  ScheduleId id;
  bool reference = false;
  bool overlap_p2p = true;
  double iteration_ms = 0, speedup_vs_1f1b = 1, bubble_ideal = 0, bubble_sim = 0;
  DominantCost dominant;  // empty `what` in files written before it was recorded
  std::vector<PredictedRank> ranks;
  // Per pipeline rank, microbatches of activations held at the peak; written for the schedules that split
  // B and W (optional: empty for the others and in older files).
  std::vector<double> activations_held;
};

struct PredictionFile {
  std::vector<std::string> cost_sources;
  std::string compute_source;
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  double w_share = 0.5;  // written (and read) only where a schedule splits B and W
  std::vector<PredictedSchedule> schedules;
  std::string best, verdict;
  double band = 0;  // 0 in files written before the band was recorded
  std::string band_source;
  bool too_close = false;
  std::vector<int> deciding_pair;
  std::vector<std::pair<int, std::optional<double>>> break_even_gbps;  // per v
  std::vector<std::string> notes;
  std::vector<Sharing> sharing;  // measured terms: groups timed at once (empty in older files)
};

}  // namespace pipebench
