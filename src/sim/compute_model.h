// SPDX-License-Identifier: Apache-2.0
// Compute model of a plan: how long one layer's forward and backward take per microbatch, the output
// layer on the last stage, the optimizer step, and how much NCCL's kernels slow overlapped compute.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "megatron/plan.h"

namespace pipebench {

struct ComputeOptions {
  double fwd_ms_per_layer = 0;  // per layer and microbatch; 0: from FLOPs / tflops
  double bwd_ms_per_layer = 0;  // 0: 2 x forward; B + W where a schedule splits them
  double w_share = 0.5;         // W's part of the backward, in [0, 1] (--w-share)
  double tflops = 0;            // achieved TFLOP/s per GPU for the FLOPs model
  double optimizer_ms = 0;
  double comm_sm_slowdown = 0;  // compute (1 + F) x slower while the rank's NCCL work runs
};

// One pipeline rank's compute as a profile of the job measured it (trace/profile_calibration.h): per layer
// and microbatch, its forward and backward (B + W) and W's part of it; the host time each pass costs beside
// its layers (the gap between one pass and the next where the rank waited for nobody: the framework's
// scheduling, posting the next call); and the optimizer step that ends its iteration.
struct RankCompute {
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  double w_share = 0.5;
  double pass_overhead_ms = 0;  // added to every pass (F, B and W each)
  double optimizer_ms = 0;
};

struct ComputeModel {
  double fwd_ms_per_layer = 0, bwd_ms_per_layer = 0;
  // W's part of every backward step (layers and output layer) where a schedule splits B and W: from FLOPs
  // each is about one forward (0.5 of the 2x backward), from fixed times the --w-share given.
  double w_share = 0.5;
  double output_layer_fwd_ms = 0;  // the logits GEMM of the last stage's last chunk (backward: 2x)
  double optimizer_ms = 0;
  double comm_sm_slowdown = 0;
  // Host time every pass costs beside its layers where no profile gives it per rank: the GPU idle after the
  // synchronisation that ends a Megatron P2P call (backend/pass_costs.h: --pass-gap-us, --measure-compute, or
  // as a table's pass costs record it, service/pass_cost_terms.h); else 0.
  double pass_overhead_ms = 0;
  std::string source;  // how fwd_ms_per_layer was found
  // By pipeline rank, when a profile gave each rank its own compute: then these replace the uniform times
  // above (the output layer scaled by each rank's forward), every optimizer step is the rank's own, and
  // the in-schedule collectives are part of the measured passes (never folded in again).
  std::vector<RankCompute> ranks;
  // Whether a send holds its rank until the transfer is done (Megatron's batched P2P calls wait for every op);
  // false where a profile showed ranks running ahead of their receivers (PyTorch pipelining waits for its sends
  // late): sim/schedule_build.h release_sends.
  bool sends_block = true;
  [[nodiscard]] bool per_rank() const { return !ranks.empty(); }
  // The output layer's forward on the rank (the uniform one, or scaled as the rank's layers are).
  [[nodiscard]] double output_layer_ms(std::size_t rank) const {
    if (!per_rank() || fwd_ms_per_layer <= 0) return output_layer_fwd_ms;
    return output_layer_fwd_ms / fwd_ms_per_layer * ranks[rank].fwd_ms_per_layer;
  }
  [[nodiscard]] double optimizer_ms_of(std::size_t rank) const {
    return per_rank() ? ranks[rank].optimizer_ms : optimizer_ms;
  }
};

// The output layer's forward FLOPs over one layer's (the logits GEMM of the last stage: 2*b*s*h*V/t, against
// layer_fwd_flops): how much heavier the last stage's last pass is than its layers alone.
[[nodiscard]] double output_layer_ratio(const Plan& plan);

// --measure-compute's backward: the layer's dgrad and wgrad GEMMs timed apart (sim/layer_gemms.h). The
// backward per layer becomes dgrad + wgrad unless --bwd-ms-per-layer set it, and W's share of it
// wgrad / (dgrad + wgrad) unless --w-share was given. Throws UsageError for a time that is not finite
// and positive.
void use_measured_backward(ComputeOptions& c, double dgrad_ms, double wgrad_ms, bool w_share_given);

// Forward FLOPs of one transformer layer and microbatch on one TP rank.
[[nodiscard]] double layer_fwd_flops(const Plan& plan);

// Throws UsageError for negative options, a W share outside [0, 1], or when neither a time nor a FLOP rate is given.
[[nodiscard]] ComputeModel make_compute_model(const Plan& plan, const ComputeOptions& options);

}  // namespace pipebench
