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

}  // namespace pipebench
