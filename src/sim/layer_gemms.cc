// SPDX-License-Identifier: Apache-2.0
// Layer GEMM shapes.
#include "sim/layer_gemms.h"

namespace pipebench {

std::vector<GemmShape> layer_forward_gemms(const LayerDims& d) {
  const std::int64_t tokens = d.b * d.s / d.cp, head_dim = d.h / d.heads, t = d.tp;
  const std::int64_t local_heads = d.heads / t;
  return {
      {"qkv", tokens, (d.h + 2 * d.groups * head_dim) / t, d.h, 1},
      {"attention scores", d.s / d.cp, d.s, head_dim, d.b * local_heads},
      {"attention x values", d.s / d.cp, head_dim, d.s, d.b * local_heads},
      {"proj", tokens, d.h, d.h / t, 1},
      {"fc1", tokens, (d.swiglu ? 2 : 1) * d.f / t, d.h, 1},
      {"fc2", tokens, d.h, d.f / t, 1},
  };
}

LayerBackwardGemms layer_backward_gemms(const LayerDims& d) {
  LayerBackwardGemms out;
  for (const GemmShape& f : layer_forward_gemms(d)) {
    // The attention products multiply two activations; the other four an activation by a weight.
    const bool weights = f.name != "attention scores" && f.name != "attention x values";
    out.dgrad.push_back({f.name + " dgrad", f.m, f.k, f.n, f.batch});
    (weights ? out.wgrad : out.dgrad).push_back({f.name + (weights ? " wgrad" : " dgrad 2"), f.k, f.n, f.m, f.batch});
  }
  return out;
}

LayerDims plan_layer_dims(const Plan& plan) {
  const MegatronArgs& a = plan.args;
  LayerDims d;
  d.b = a.micro_batch;
  d.s = a.seq_length;
  d.h = a.hidden;
  d.f = a.ffn_hidden;
  d.heads = a.heads;
  d.groups = a.gqa ? a.query_groups : d.heads;
  d.tp = plan.layout.tp;
  d.cp = plan.layout.cp;
  d.swiglu = a.swiglu;
  return d;
}

DType plan_gemm_dtype(const Plan& plan) {
  return plan.args.params_dtype == DType::kHalf ? DType::kHalf : DType::kBfloat16;
}

}  // namespace pipebench
