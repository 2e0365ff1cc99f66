// SPDX-License-Identifier: Apache-2.0
// The GEMMs of one transformer layer's forward pass on one tensor-parallel rank, at their exact shapes
// (for --measure-compute), and their FLOPs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/gemm_shape.h"
#include "megatron/plan.h"

namespace pipebench {

struct LayerDims {
  std::int64_t b = 1, s = 1, h = 1, f = 1, heads = 1, groups = 1;  // groups: query groups (= heads for MHA)
  int tp = 1, cp = 1;
  bool swiglu = false;
};

// qkv, attention scores, attention x values, proj, fc1, fc2 (Megatron's layer; s split over CP for
// the local tokens, matrices over TP).
[[nodiscard]] std::vector<GemmShape> layer_forward_gemms(const LayerDims& d);

// The same layer's backward GEMMs: each forward product C[m,n] = A[m,k] B[k,n] has two gradients of
// its FLOPs, dA = dC B^T [m,k] and dB = A^T dC [k,n]. dgrad holds the gradients the previous layer
// waits for (B in a schedule that splits the backward), wgrad the weights' gradients nothing in the
// backward waits for (W, which zero-bubble schedules move; Qi et al. 2023, §2). The attention products
// have no weights: both of their gradients are dgrad. Together they are 2x the forward's FLOPs.
struct LayerBackwardGemms {
  std::vector<GemmShape> dgrad, wgrad;
};
[[nodiscard]] LayerBackwardGemms layer_backward_gemms(const LayerDims& d);

// One transformer layer's GEMM dimensions on one rank of a plan (its TP and CP split).
[[nodiscard]] LayerDims plan_layer_dims(const Plan& plan);

// The type the layer's GEMMs are timed in: half for fp16 models, else bfloat16 (fp32 models too).
[[nodiscard]] DType plan_gemm_dtype(const Plan& plan);

}  // namespace pipebench
