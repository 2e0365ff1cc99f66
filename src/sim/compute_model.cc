// SPDX-License-Identifier: Apache-2.0
// Compute model.
#include "sim/compute_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "sim/model_error.h"

namespace pipebench {

// 2*b*s*(h*(h+2gk) + h^2 + h*f*(2|3)) + 4*b*s^2*h (Narayanan et al. 2021 eq. 3 with GQA and swiglu),
// s split over CP, matrices over TP.
double layer_fwd_flops(const Plan& plan) {
  const MegatronArgs& a = plan.args;
  const double h = a.hidden, f = a.ffn_hidden;
  const double b = static_cast<double>(a.micro_batch);
  const double s = static_cast<double>(a.seq_length) / static_cast<double>(plan.layout.cp);
  const double heads = a.heads;
  const double groups = a.gqa ? static_cast<double>(a.query_groups) : heads;
  const double k = h / heads;
  const double mlp = a.swiglu ? 3 : 2;
  const double t = plan.layout.tp;
  return (2 * b * s * (h * (h + 2 * groups * k) + h * h + mlp * h * f) + 4 * b * s * s * h) / t;
}

void use_measured_backward(ComputeOptions& c, double dgrad_ms, double wgrad_ms, bool w_share_given) {
  if (!(std::isfinite(dgrad_ms) && dgrad_ms > 0 && std::isfinite(wgrad_ms) && wgrad_ms >= 0)) {
    throw UsageError("--measure-compute: the backward GEMMs measured " + std::to_string(dgrad_ms) + " ms (dgrad) and " +
                     std::to_string(wgrad_ms) + " ms (wgrad)");
  }
  if (c.bwd_ms_per_layer <= 0) c.bwd_ms_per_layer = dgrad_ms + wgrad_ms;
  if (!w_share_given) c.w_share = wgrad_ms / (dgrad_ms + wgrad_ms);
}

namespace {

// The output layer's logits GEMM on the last stage: 2*b*s*h*V/t FLOPs forward.
double output_layer_flops(const Plan& plan) {
  const MegatronArgs& a = plan.args;
  const double h = a.hidden;
  return 2 * static_cast<double>(a.micro_batch) * static_cast<double>(a.seq_length) /
         static_cast<double>(plan.layout.cp) * h * static_cast<double>(plan.padded_vocab_size) /
         static_cast<double>(plan.layout.tp);
}

}  // namespace

double output_layer_ratio(const Plan& plan) { return output_layer_flops(plan) / std::max(layer_fwd_flops(plan), 1.0); }

ComputeModel make_compute_model(const Plan& plan, const ComputeOptions& c) {
  if (c.fwd_ms_per_layer < 0 || c.bwd_ms_per_layer < 0 || c.tflops < 0 || c.optimizer_ms < 0 ||
      c.comm_sm_slowdown < 0) {
    throw ModelError(ModelError::Input::kNegativeCompute,
                     "compute model: times per layer, TFLOP/s, optimizer time and comm slowdown must not be negative",
                     "must not be negative");
  }
  if (!(c.w_share >= 0 && c.w_share <= 1)) {
    throw UsageError("--w-share " + std::to_string(c.w_share) + ": W's part of the backward must be in [0, 1]");
  }
  ComputeModel out;
  out.w_share = c.w_share;
  if (c.fwd_ms_per_layer > 0) {
    out.fwd_ms_per_layer = c.fwd_ms_per_layer;
    out.source = "--fwd-ms-per-layer";
  } else if (c.tflops > 0) {
    out.fwd_ms_per_layer = layer_fwd_flops(plan) / (c.tflops * 1e12) * 1e3;
    out.source = "FLOPs of the layer / --tflops " + std::to_string(c.tflops);
  } else {
    throw ModelError(ModelError::Input::kNoComputeTime,
                     "compute time: neither a forward time per layer nor an achieved FLOP rate", "");
  }
  out.bwd_ms_per_layer = c.bwd_ms_per_layer > 0 ? c.bwd_ms_per_layer : 2 * out.fwd_ms_per_layer;
  // At the same rate as the layers.
  out.output_layer_fwd_ms = out.fwd_ms_per_layer / std::max(layer_fwd_flops(plan), 1.0) * output_layer_flops(plan);
  out.optimizer_ms = c.optimizer_ms;
  out.comm_sm_slowdown = c.comm_sm_slowdown;
  return out;
}

}  // namespace pipebench
