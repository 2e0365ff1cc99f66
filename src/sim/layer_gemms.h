// SPDX-License-Identifier: Apache-2.0
// The GEMMs of one transformer layer's forward pass on one tensor-parallel rank, at their exact shapes
// (for --measure-compute), and their FLOPs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipebench {

struct GemmShape {
  std::string name;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  // C[m,n] = A[m,k] B[k,n], `batch` times
  [[nodiscard]] double flops() const { return 2.0 * static_cast<double>(m) * n * k * batch; }
};

struct LayerDims {
  std::int64_t b = 1, s = 1, h = 1, f = 1, heads = 1, groups = 1;  // groups: query groups (= heads for MHA)
  int tp = 1, cp = 1;
  bool swiglu = false;
};

// qkv, attention scores, attention x values, proj, fc1, fc2 (Megatron's layer; s split over CP for
// the local tokens, matrices over TP).
[[nodiscard]] std::vector<GemmShape> layer_forward_gemms(const LayerDims& d);

}  // namespace pipebench
