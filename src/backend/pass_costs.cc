// SPDX-License-Identifier: Apache-2.0
// The terms derived from the measured ones (backend/pass_costs.h); the measurement is in pass_costs.cu.
#include "backend/pass_costs.h"

#include <algorithm>

namespace pipebench {

bool PassCosts::serialised() const {
  return nccl_beside_us > 0 && gemm_beside_nccl_us.median_us - gemm_alone_us.median_us >= 0.5 * nccl_beside_us;
}

double PassCosts::comm_sm_slowdown() const {
  if (gemm_alone_us.median_us <= 0 || serialised()) return 0;
  return std::max(0.0, gemm_beside_nccl_us.median_us / gemm_alone_us.median_us - 1);
}

double PassCosts::call_host_beyond_device_us() const {
  return std::max(0.0, call_host_us.median_us - call_device_us.median_us);
}

}  // namespace pipebench
