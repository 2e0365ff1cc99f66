// SPDX-License-Identifier: Apache-2.0
// The prediction a replay is held against: the plan's messages timed on the replay's own ranks and backend
// as `bench --plan` times them (kept in memory; beside --json FILE also as FILE.table.json), or a results
// file given; rank 0 predicts with the replay's compute and schedules, keeping each task's start so that the
// replay is held against it task by task (replay/task_drift.h). And --measure-compute's GEMM timing.
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"
#include "launch/world.h"
#include "megatron/plan.h"
#include "replay/replay.h"
#include "sim/compute_model.h"
#include "sim/predictor.h"

namespace pipebench {

struct ReplayTable {
  std::string plan_path;   // names the plan in bench --plan's header
  std::string table_path;  // --table: these costs instead of timing the messages
  std::string json_path;   // --json: the timed table is also written beside it
  bool quiet = false;      // no progress lines while the messages are timed
};

// Collective. The prediction on rank 0 (null on the others); an error there (a missing measurement, an
// unreadable table) is thrown as the same UsageError on every rank, which would otherwise wait in the replay.
[[nodiscard]] std::unique_ptr<Prediction> replay_prediction(const World& world, const Plan& plan, Backend& backend,
                                                            const ReplayOptions& options, const ReplayTable& table);

// --measure-compute: the layer's forward GEMMs, then its backward ones, dgrad and wgrad apart (as predict's),
// on each rank's GPU; the slowest rank's set the pace of the pipeline. Collective. Throws UsageError where
// no GPU or no cuBLAS can time them.
void measure_replay_compute(const World& world, const Plan& plan, ComputeOptions& compute, bool w_share_given);

}  // namespace pipebench
