// SPDX-License-Identifier: Apache-2.0
// Holds a profile against a pipebench plan (and prediction): per rank, the P2P and collective messages
// the profile saw against those the plan lists (by op and elements; counts scaled to the number of
// iterations profiled), and the measured communication share against the predicted one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "megatron/plan.h"
#include "sim/predictor.h"
#include "trace/profile.h"

namespace pipebench {

struct PlanCheckOptions {
  std::string schedule;           // "1f1b", "interleaved", "interleaved:v2"; empty: the best-matching one
  std::optional<int> first_rank;  // global rank of the lowest device id (then one rank per device)
  std::int64_t iterations = 0;    // iterations in the profile; 0: ProfilerStep count, else estimated
};

struct PlanCheckRow {
  std::string status;  // ok, count, missing, unplanned, dtype, unsized
  std::string op;
  std::int64_t elements = -1;
  std::string planned_dtype, seen_dtype;
  std::int64_t planned_per_iteration = 0, expected = 0, seen = 0;
  std::string what;  // the plan's description (activation, dp grad, ...)
};

struct RankCheck {
  int rank = 0;
  int device = 0;
  bool listed = true;  // the plan lists this rank's messages
  std::vector<PlanCheckRow> rows;
  int mismatches = 0;
  double comm_share = 0;                       // measured: union of NCCL kernel time / span
  std::optional<double> predicted_comm_share;  // the prediction's nccl_share for this rank and schedule
};

struct PlanCheck {
  ScheduleId schedule;
  std::string schedule_reason;
  std::int64_t iterations = 1;
  std::string iterations_source;  // given, profiler steps, estimated, assumed
  std::vector<RankCheck> ranks;
  int mismatches = 0;
  std::vector<std::string> notes;
};

// Throws UsageError when the plan has no schedule matching options.schedule (naming the flag and
// listing the plan's schedules) or the prediction is not a pipebench prediction.
[[nodiscard]] PlanCheck check_against_plan(const TraceProfile& profile, const Plan& plan, const Prediction* prediction,
                                           const PlanCheckOptions& options);

[[nodiscard]] nlohmann::json plan_check_to_json(const PlanCheck& c);

}  // namespace pipebench
