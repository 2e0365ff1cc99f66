// SPDX-License-Identifier: Apache-2.0
// Predictor: from a plan and a cost model, simulate every schedule of the plan on its first pipeline
// group and say which schedule is fastest, by how much, and which link decides it.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost_model.h"
#include "sim/simulator.h"

namespace pipebench {

struct ComputeOptions {
  double fwd_ms_per_layer = 0;  // per layer and microbatch; 0: from FLOPs / tflops
  double bwd_ms_per_layer = 0;  // 0: 2 x forward
  double tflops = 0;            // achieved TFLOP/s per GPU for the FLOPs model
  double optimizer_ms = 0;
  double comm_sm_slowdown = 0;  // compute (1 + F) x slower while the rank's NCCL work runs
};

// Which links each transfer between two global ranks crosses, from the topology embedded in a
// results file (system.topology pairs[].path, system.devices for rank -> GPU). Empty: unknown.
struct PathModel {
  std::map<std::pair<int, int>, std::vector<int>> links;  // (src, dst) global ranks -> link ids
  std::size_t link_count = 0;
  [[nodiscard]] bool empty() const { return links.empty(); }
};

[[nodiscard]] PathModel paths_from_results(const nlohmann::json& results);

struct SchedulePrediction {
  std::string name;
  int v = 1;
  bool overlap_p2p = true;
  bool reference = false;  // GPipe: shown for comparison, never the verdict
  double iteration_ms = 0, speedup = 1, bubble_ideal = 0, bubble_sim = 0;
  std::vector<int> global_ranks;  // pipeline rank -> global rank
  SimResult sim;
};

struct Prediction {
  std::vector<SchedulePrediction> schedules;
  std::string compute_source;
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  std::vector<std::string> cost_sources;   // distinct sources used
  std::string best, verdict;
  std::vector<int> deciding_pair;          // the slowest pipeline link (global ranks)
  double deciding_pair_ms = 0;             // its cost per activation message
  std::vector<std::pair<int, std::optional<double>>> break_even_gbps;  // per v
  std::vector<std::string> notes;
};

// Throws UsageError for a malformed plan, missing measurements, or bad compute options.
// paths: optional topology paths (transfers sharing a link compete); shared_path puts every pair on one.
[[nodiscard]] Prediction predict(const nlohmann::json& plan, const CostModel& costs, const ComputeOptions& compute,
                                 bool shared_path, bool keep_trace, const std::string& schedule_filter,
                                 const PathModel* paths = nullptr);

[[nodiscard]] nlohmann::json prediction_to_json(const Prediction& p);

// Chrome trace (complete events; one process per rank, threads compute / send / recv / collectives).
[[nodiscard]] nlohmann::json chrome_trace(const SchedulePrediction& s);

}  // namespace pipebench
