// SPDX-License-Identifier: Apache-2.0
// One GEMM's shape: what the compute model derives (sim/layer_gemms) and the GPU timer runs
// (backend/gemm_timer), so the backend needs nothing from the simulator.
#pragma once

#include <cstdint>
#include <string>

namespace pipebench {

struct GemmShape {
  std::string name;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  // C[m,n] = A[m,k] B[k,n], `batch` times
  [[nodiscard]] double flops() const { return 2.0 * static_cast<double>(m) * n * k * batch; }
};

}  // namespace pipebench
