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

class ReplayGemm {
 public:
  // On CUDA device `device` (current). Throws UsageError where this pipebench has no cuBLAS, Error
  // naming the call where cuBLAS fails.
  ReplayGemm(std::vector<GemmShape> layer, DType t, int device, std::int64_t layer_fwd_ns);
  ~ReplayGemm();
  ReplayGemm(const ReplayGemm&) = delete;
  ReplayGemm& operator=(const ReplayGemm&) = delete;

  // Launches gemm_step(duration_ns) of the layer's GEMMs on `stream` (a cudaStream_t): a step's planned
  // time in forward-layer GEMMs, so a backward step (twice the forward per layer, Narayanan et al.
  // 2021 §3.5) runs twice the forward FLOPs, which is what its dgrad and wgrad GEMMs (the forward
  // shapes transposed) cost.
  void run(void* stream, std::int64_t duration_ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipebench
