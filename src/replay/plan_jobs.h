// SPDX-License-Identifier: Apache-2.0
// From a plan to what one rank replays per schedule: its pipeline group, the Program of its pipeline
// rank from build_schedule (the schedule generator and compute model predict uses, without folding the
// in-schedule collectives into compute), and its after-pipeline collectives on their real groups.
#pragma once

#include <string>
#include <vector>

#include "megatron/plan.h"
#include "replay/executor.h"
#include "sim/compute_model.h"

namespace pipebench {

struct PlanJobs {
  std::vector<RankJob> jobs;                 // per schedule, in the plan's order, GPipe last
  std::vector<std::vector<int>> all_groups;  // every collective group of the plan (same on all ranks)
  ComputeModel compute;
};

// schedule: "" or "all" for every schedule (1F1B, each interleaved v, GPipe as reference), else
// 1f1b | interleaved | interleaved:vN | gpipe. Throws UsageError for an unknown schedule or v, a plan
// without this rank, or compute that is not positive and finite.
// schedule_files (schedule/schedule_file.h) run after the selected schedules, as references.
[[nodiscard]] PlanJobs plan_jobs(const Plan& plan, const ComputeOptions& compute, int global_rank,
                                 const std::string& schedule, const std::vector<ScheduleId>& schedule_files = {});
// The same with a compute model made elsewhere: a profile's per-rank compute (run --profile), each rank's
// passes and optimizer step its own.
[[nodiscard]] PlanJobs plan_jobs(const Plan& plan, ComputeModel compute, int global_rank, const std::string& schedule,
                                 const std::vector<ScheduleId>& schedule_files = {});

}  // namespace pipebench
