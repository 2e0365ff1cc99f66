// SPDX-License-Identifier: Apache-2.0
// The replay's GEMM compute (--compute gemm): a compute step runs the layer's GEMMs at their exact
// shapes (sim/layer_gemms) with cuBLAS instead of spinning. Plain C++ header; cuBLAS lives in
// replay_gemm.cu.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/gemm_shape.h"

namespace pipebench {

// How many passes of one layer's forward GEMMs a compute step of duration_ns runs: the step's planned
// time over one layer's planned forward time, rounded, at least one. A backward step (twice the
// forward per layer, Narayanan et al. 2021 §3.5) thereby runs twice the forward FLOPs, which is what
// its dgrad and wgrad GEMMs (the forward shapes transposed) cost.
[[nodiscard]] std::int64_t gemm_passes(std::int64_t duration_ns, std::int64_t layer_fwd_ns);

class ReplayGemm {
 public:
  // On CUDA device `device` (current). Throws UsageError where this pipebench has no cuBLAS, Error
  // naming the call where cuBLAS fails.
  ReplayGemm(std::vector<GemmShape> layer, DType t, int device, std::int64_t layer_fwd_ns);
  ~ReplayGemm();
  ReplayGemm(const ReplayGemm&) = delete;
  ReplayGemm& operator=(const ReplayGemm&) = delete;

  // Launches gemm_passes(duration_ns) passes of the layer's GEMMs on `stream` (a cudaStream_t).
  void run(void* stream, std::int64_t duration_ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipebench
