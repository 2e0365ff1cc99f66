// SPDX-License-Identifier: Apache-2.0
// From a plan (pipebench.plan/1) to what one rank replays per schedule: its pipeline group, the
// schedule generator's Program for its pipeline rank (the same generator and compute model that
// predict uses), and its after-pipeline collectives on their real groups.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "replay/executor.h"
#include "sim/predictor.h"

namespace pipebench {

struct PlanJobs {
  std::vector<RankJob> jobs;                 // per schedule, in the plan's order, GPipe last
  std::vector<std::vector<int>> all_groups;  // every collective group of the plan (same on all ranks)
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  std::string compute_source;
};

// schedule: "" or "all" for every schedule (1F1B, each interleaved v, GPipe as reference), else
// 1f1b | interleaved | interleaved:vN | gpipe. Throws UsageError for an unknown schedule or v, a plan
// without this rank, or compute that is not positive and finite.
[[nodiscard]] PlanJobs plan_jobs(const nlohmann::json& plan, const ComputeOptions& compute, int global_rank,
                                 const std::string& schedule);

[[nodiscard]] ReplayCollOp replay_coll_op(const std::string& op);

}  // namespace pipebench
