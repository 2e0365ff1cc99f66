// SPDX-License-Identifier: Apache-2.0
// The one way a command predicts a plan (predict, run, replay): which communication costs (built here
// once, with the placement of a measured table's ranks and the topology paths they share), which
// schedules, which link model, and the compute.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/record.h"
#include "megatron/plan.h"
#include "schedule/schedule_id.h"
#include "sim/compute_model.h"
#include "sim/cost_model.h"
#include "sim/predictor.h"
#include "topology/placement.h"

namespace pipebench {

// Measured records (a results file or a sweep's records in memory) on the ranks they ran on: the costs
// interpolate them, and the topology paths of the placed ranks' GPUs say which transfers share a link.
// An nccl-tests import stands for every group (NcclTestsCost).
struct MeasuredTable {
  std::vector<ResultRecord> records;
  Placement placement;
  std::string source;  // names the table in messages and in the cost description
  bool from_nccl_tests = false;
  bool class_fallback = false;  // a missing group takes a measured group of its link class
};

// What-if links: every link `gbps` GB/s per direction and `latency_us`; groups of a class in
// `class_links` use that class's link instead (their classes from `placement`).
struct ClassLink {
  LinkClass cls;
  double gbps = 0, us = 0;
};
struct AssumedLinks {
  double gbps = 0, latency_us = 0;
  std::vector<ClassLink> class_links;
  Placement placement;
  std::string description;  // empty: "assumed: every link ..."
};

// Free communication (a compute-only bound).
struct ZeroComm {};

// A model made elsewhere (a profile's calibration) and its description; the caller keeps it alive.
struct GivenCosts {
  const CostModel* model = nullptr;
  std::string description;
};

using CostSource = std::variant<ZeroComm, AssumedLinks, MeasuredTable, GivenCosts>;

// How transfers share links: each pair on its own path, or on the topology paths of a measured table's
// placement where it has them (kTopologyPaths); every pipeline pair on one path (kSharedPath).
enum class LinkModel { kTopologyPaths, kSharedPath };

struct PredictRequest {
  CostSource costs;
  ComputeModel compute;
  std::string schedule;                    // --schedule's value: "" or "all" for every schedule
  std::vector<ScheduleId> schedule_files;  // predicted beside the selection, as references
  LinkModel links = LinkModel::kTopologyPaths;
  bool keep_trace = false;  // the schedules keep their task starts (replay holds them against its own)
  ScheduleTraceSink trace_sink;
  bool compare_cold = false;  // Prediction::compares_cold
};

struct PredictOutcome {
  Prediction prediction;
  std::string cost_text;                  // the costs in words ("measured: FILE", "assumed: every link ...")
  std::optional<std::size_t> link_count;  // the topology's links the paths cross, where paths were known
};

// Throws UsageError for a missing measurement or an unknown schedule; ModelError as predict() does.
[[nodiscard]] PredictOutcome predict(const Plan& plan, const PredictRequest& request);

}  // namespace pipebench
