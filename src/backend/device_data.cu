// SPDX-License-Identifier: Apache-2.0
// Grid-stride kernels over core/element.h.
#include "backend/device_data.cuh"

namespace pipebench {
namespace {

__global__ void fill_kernel(void* buffer, FillRegion r, Pattern p, DType t) {
  const std::uint64_t stride = static_cast<std::uint64_t>(blockDim.x) * gridDim.x;
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < r.count; j += stride) {
    store_element(t, buffer, r.elem_offset + j, pattern_value(p, r.rank, r.index_base + j));
  }
}

__global__ void verify_kernel(const void* recv, CheckRegion r, Pattern p, DType t, unsigned long long* counter) {
  const std::uint64_t stride = static_cast<std::uint64_t>(blockDim.x) * gridDim.x;
  unsigned long long wrong = 0;
  for (std::uint64_t j = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; j < r.count; j += stride) {
    const std::uint64_t index = r.index_base + j;
    const double want = r.reduced ? reduced_value(p, index) : pattern_value(p, r.from_rank, index);
    wrong += element_bits(t, recv, r.elem_offset + j) != value_bits(t, want);
  }
  if (wrong) atomicAdd(counter, wrong);
}

constexpr int kThreads = 256;

unsigned grid_for(std::uint64_t count) {
  const std::uint64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

}  // namespace

cudaError_t device_fill(void* buffer, const FillRegion& r, const Pattern& p, DType t, cudaStream_t s) {
  if (r.count == 0) return cudaSuccess;
  fill_kernel<<<grid_for(r.count), kThreads, 0, s>>>(buffer, r, p, t);
  return cudaGetLastError();
}

cudaError_t device_count_wrong(const void* recv, const CheckRegion& r, const Pattern& p, DType t,
                               unsigned long long* counter, cudaStream_t s) {
  if (r.count == 0) return cudaSuccess;
  verify_kernel<<<grid_for(r.count), kThreads, 0, s>>>(recv, r, p, t, counter);
  return cudaGetLastError();
}

}  // namespace pipebench
