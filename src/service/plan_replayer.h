// SPDX-License-Identifier: Apache-2.0
// The replay step of `replay` and `run`: the replay runtime of the backend the plan's messages are issued
// on, the replay of the plan's schedules on it (replay/replay.h replay_plan), and its file written after
// every timed iteration, so that a replay stopped part-way leaves what it measured.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/replay_runtime.h"
#include "launch/world.h"
#include "replay/replay.h"

namespace pipebench {

class PlanReplayer {
 public:
  // The runtime of backend.kind(): MPI computes by sleeping on the host, NCCL as `compute` says. Made
  // before the plan's messages are timed for a prediction: the MPI runtime takes the timer slack off this
  // process, so the messages are timed under the conditions they are replayed in.
  PlanReplayer(const World& world, Backend& backend, const ReplayComputeOptions& compute = {});

  // Collective. Rank 0 writes json_path (unless empty; naming plan_path) after every timed iteration,
  // then calls after_iteration. The result is complete on rank 0.
  [[nodiscard]] ReplayResult replay(const Plan& plan, ReplayOptions options, const Prediction* prediction,
                                    const std::string& json_path, const std::string& plan_path,
                                    const std::function<void(const ReplayResult&)>& after_iteration = {});

 private:
  const World& world_;
  Backend& backend_;
  std::string compute_kind_;  // the result's: host-sleep, or compute.kind on NCCL
  std::unique_ptr<ReplayRuntime> runtime_;
};

}  // namespace pipebench
