// SPDX-License-Identifier: Apache-2.0
// Launching the layer's GEMMs with cuBLAS at their exact shapes: the cuBLAS handle, the buffers the largest
// shape needs, and one GEMM on a stream. Shared by the GEMM timer and the pass-cost measurement.
// CUDA-only header: included from .cu files alone.
#pragma once

#include <cublas_v2.h>

#include <vector>

#include "backend/cuda_handles.cuh"
#include "core/dtype.h"
#include "core/gemm_shape.h"

namespace pipebench {

// A cuBLAS handle of `device` (made current), destroyed with the object.
class Blas {
 public:
  explicit Blas(int device);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  [[nodiscard]] cublasHandle_t get() const { return h_; }
  // Later GEMMs of this handle go to `stream` (nullptr: the legacy default stream).
  void set_stream(cudaStream_t stream) const;

 private:
  cublasHandle_t h_ = nullptr;
};

// A, B and C of the largest of `shapes` (2-byte elements), zeroed, on `device`.
struct GemmBuffers {
  DeviceMemory a, b, c;
};
[[nodiscard]] GemmBuffers gemm_buffers_for(const std::vector<GemmShape>& shapes, int device);

// The row-major C[m,n] = A[m,k] B[k,n] of `s`, `batch` times, in `t` (half or bfloat16) with fp32 accumulation,
// on the handle's stream. Throws Error naming the cuBLAS call.
void launch_gemm(const Blas& blas, const GemmShape& s, DType t, const GemmBuffers& buf);

}  // namespace pipebench
