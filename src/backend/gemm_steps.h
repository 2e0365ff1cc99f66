// SPDX-License-Identifier: Apache-2.0
// What one compute step of the replay's GEMM compute (--compute gemm) runs: whole passes of one layer's
// forward GEMMs, plus the subset of one more pass whose FLOPs come closest to the rest of the step's
// planned time (at the layer's rate, as the compute model prices the output layer). Whole passes alone
// round a step to a layer: a last stage's forward carries the logits GEMM (0.6 of a layer at h 4096,
// V 32000), so it ran 5 passes for a plan of 4.6 and the replay drifted from its prediction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/gemm_shape.h"

namespace pipebench {

struct GemmStep {
  std::int64_t passes = 0;         // whole passes of the layer
  std::vector<std::size_t> extra;  // then these GEMMs of the layer (indices, in the layer's order)
  double planned_layers = 0;       // the step's planned time in layer passes
  double run_layers = 0;           // what passes + extra run, in layer passes by FLOPs
};

// duration_ns: the step's planned time; layer_fwd_ns: one layer's planned forward time. A step with a
// positive duration runs at least one GEMM. The rest is matched exactly over subsets of up to 16 GEMMs,
// else greedily in order (error at most half the largest GEMM's share).
[[nodiscard]] GemmStep gemm_step(std::int64_t duration_ns, std::int64_t layer_fwd_ns,
                                 const std::vector<GemmShape>& layer);

}  // namespace pipebench
