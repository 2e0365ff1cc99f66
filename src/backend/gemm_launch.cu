// SPDX-License-Identifier: Apache-2.0
// The layer's GEMMs with cuBLAS (backend/gemm_launch.cuh).
#include <algorithm>
#include <string>

#include "backend/cublas_library.cuh"
#include "backend/gemm_launch.cuh"
#include "core/error.h"

namespace pipebench {
namespace {

void check_cublas(cublasStatus_t rc, const char* call) {
  if (rc != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string(call) + " failed: cuBLAS status " + std::to_string(static_cast<int>(rc)));
}

cudaDataType_t cuda_type(DType t) { return t == DType::kHalf ? CUDA_R_16F : CUDA_R_16BF; }

}  // namespace

Blas::Blas(int device) {
  check_cuda(cudaSetDevice(device), "cudaSetDevice", "cuBLAS on GPU " + std::to_string(device));
  check_cublas(cublas_library().create(&h_), "cublasCreate");
}

Blas::~Blas() { cublas_library().destroy(h_); }

void Blas::set_stream(cudaStream_t stream) const {
  check_cublas(cublas_library().set_stream(h_, stream), "cublasSetStream");
}

GemmBuffers gemm_buffers_for(const std::vector<GemmShape>& shapes, int device) {
  std::size_t a = 16, b = 16, c = 16;  // 2-byte elements; 64-bit products (shapes are < 2^31 per side)
  const auto bytes = [](std::int64_t rows, std::int64_t cols, std::int64_t batch) {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) * static_cast<std::size_t>(batch) * 2;
  };
  for (const auto& s : shapes) {
    a = std::max(a, bytes(s.m, s.k, s.batch));
    b = std::max(b, bytes(s.k, s.n, s.batch));
    c = std::max(c, bytes(s.m, s.n, s.batch));
  }
  GemmBuffers out;
  for (auto [size, slot] : {std::pair<std::size_t, DeviceMemory*>{a, &out.a}, {b, &out.b}, {c, &out.c}}) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, size), "cudaMalloc", "GEMM buffers on GPU " + std::to_string(device));
    *slot = DeviceMemory(p, device);
    check_cuda(cudaMemset(p, 0, size), "cudaMemset", "GEMM buffers on GPU " + std::to_string(device));
  }
  return out;
}

void launch_gemm(const Blas& blas, const GemmShape& s, DType t, const GemmBuffers& buf) {
  const float one = 1.0f, zero = 0.0f;
  // Column-major C^T[n,m] = B^T[n,k] A^T[k,m]: the row-major product C[m,n] = A[m,k] B[k,n].
  check_cublas(
      cublas_library().gemm_strided_batched_ex(
          blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m), static_cast<int>(s.k),
          &one, buf.b.get(), cuda_type(t), static_cast<int>(s.n), s.k * s.n, buf.a.get(), cuda_type(t),
          static_cast<int>(s.k), s.m * s.k, &zero, buf.c.get(), cuda_type(t), static_cast<int>(s.n), s.m * s.n,
          static_cast<int>(s.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
}

}  // namespace pipebench
