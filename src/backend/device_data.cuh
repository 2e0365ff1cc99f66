// SPDX-License-Identifier: Apache-2.0
// Fill and verify kernels for the data check: the same functions as host_data, on the GPU, so a 1 GiB
// check costs milliseconds and no host copies. CUDA-only header.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/data_layout.h"
#include "core/element.h"

namespace pipebench {

// Enqueue on `stream`; errors are reported by the caller's check of the launch.
cudaError_t device_fill(void* buffer, const FillRegion& region, const Pattern& p, DType t, cudaStream_t stream);
// Adds the number of wrong elements to *counter (device memory).
cudaError_t device_count_wrong(const void* recv, const CheckRegion& region, const Pattern& p, DType t,
                               unsigned long long* counter, cudaStream_t stream);

}  // namespace pipebench
