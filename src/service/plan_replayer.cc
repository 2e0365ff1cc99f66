// SPDX-License-Identifier: Apache-2.0
// The replay step of `replay` and `run`.
#include "service/plan_replayer.h"

#include "core/file_io.h"
#include "core/json_file.h"
#include "io/replay_io.h"

namespace pipebench {

PlanReplayer::PlanReplayer(const World& world, Backend& backend, const ReplayComputeOptions& compute)
    : world_(world),
      backend_(backend),
      compute_kind_(backend.kind() == BackendKind::kMpi ? "host-sleep" : compute.kind),
      runtime_(backend.kind() == BackendKind::kMpi ? make_mpi_replay_runtime(world, backend)
                                                   : make_nccl_replay_runtime(world, backend, compute)) {}

ReplayResult PlanReplayer::replay(const Plan& plan, ReplayOptions options, const Prediction* prediction,
                                  const std::string& json_path, const std::string& plan_path,
                                  const std::function<void(const ReplayResult&)>& after_iteration) {
  options.compute_kind = compute_kind_;
  return replay_plan(world_, backend_, *runtime_, plan, options, prediction, [&](const ReplayResult& so_far) {
    if (!json_path.empty()) write_output_file("", json_path, json_file_text(replay_to_json(so_far, plan_path), 2));
    if (after_iteration) after_iteration(so_far);
  });
}

}  // namespace pipebench
