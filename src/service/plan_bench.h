// SPDX-License-Identifier: Apache-2.0
// `pipebench bench --plan plan.json`: times each distinct (op, group, size) of a plan on the ranks that
// carry it: sub-communicators for groups (the embedding pair {0, p-1} is a 2-rank all_reduce between
// exactly those ranks), P2P by the plan's batches, each as one call of the transfers Megatron issues
// together (a plan without batch ids: per pair, both ways at once where the schedule sends both ways).
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "collectives/op.h"
#include "core/dtype.h"
#include "core/rank_pair.h"
#include "io/results_io.h"
#include "launch/world.h"
#include "megatron/plan.h"
#include "service/bench_config.h"

namespace pipebench {

struct PlanPoint {
  const Op* op = nullptr;  // the transfer op for P2P; else the message's collective (all_reduce, ...)
  std::vector<int> group;  // global ranks, sorted
  std::int64_t elements = 0;
  DType dtype = DType::kFloat;
  bool forward = true;    // pair: group[0] sends to group[1]
  bool backward = false;  // pair: group[1] sends to group[0]
  std::vector<int> ids;   // plan message ids it stands for
  // A batch of the plan (its messages' `batch` ids): the transfers (global ranks) Megatron issues together,
  // timed as one call of the transfer op on `group`; `batch` names the call(s). Empty for a plan without
  // batch ids, where each pair is timed one way or both ways (forward, backward).
  std::vector<RankPair> transfers;
  std::string batch;
  // A point of at_once_points: these disjoint groups (group = their union) run the op together, each on
  // its own communicator.
  std::vector<std::vector<int>> at_once;
};

// Distinct points of the plan's schedules: collectives by (op, group, size); P2P by batch (the same
// transfers at the same size are one point, e.g. rank 1's send_forward_recv_backward and rank 2's
// send_backward_recv_forward), or in a plan without batch ids by pair. (all, or the one named "1f1b" / "interleaved" /
// "interleaved:v4"). Throws UsageError for an unknown schedule name or a malformed message.
[[nodiscard]] std::vector<PlanPoint> distinct_plan_points(const Plan& plan, const std::string& schedule);

// The plan's gradient reductions as they run: after the pipeline every pipeline stage reduces its
// gradients on its own group at the same time, so groups that share a resource (host memory, a NIC) slow
// each other down, which timing each alone does not show. For each op and group size of the schedules'
// after-pipeline collectives of at least kAtOnceMinBytes on two or more disjoint groups: one point per
// size class (sizes within kAtOnceSizeRatio of the class's smallest), at the class's largest size, on
// every group with a message in the class. The predictor models the resource they share from it
// (sim/shared_resource.h).
inline constexpr std::int64_t kAtOnceMinBytes = std::int64_t{1} << 20;
inline constexpr double kAtOnceSizeRatio = 1.25;
[[nodiscard]] std::vector<PlanPoint> at_once_points(const Plan& plan, const std::string& schedule);

[[nodiscard]] int run_plan_bench(const BenchConfig& config, const World& world);

// The same for a plan already in memory (identical on every rank), on a backend already built. When
// `results` is given, rank 0 also gets back what it wrote to config.outputs.json_path (records and system), so a
// caller need not read the file back.
[[nodiscard]] int run_plan_bench_on(Backend& backend, const Plan& plan, const std::string& label,
                                    const BenchConfig& config, const World& world, ResultSet* results = nullptr);

}  // namespace pipebench
