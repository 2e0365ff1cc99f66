// SPDX-License-Identifier: Apache-2.0
// Times GEMMs on the GPU with cuBLAS (--measure-compute). Plain C++ header.
#pragma once

#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/gemm_shape.h"

namespace pipebench {

// Median over `reps` of the summed time of the shapes, each run back to back on CUDA device `device`
// in `t` (half or bfloat16; fp32 accumulation). Throws Error naming the failing call.
[[nodiscard]] double time_gemms_ms(const std::vector<GemmShape>& shapes, DType t, int device, int reps);

// A bare loop for comparison: `iters` GEMMs of one shape between two CUDA events, per GEMM in ms.
[[nodiscard]] double bare_gemm_loop_ms(const GemmShape& shape, DType t, int device, int iters);

}  // namespace pipebench
