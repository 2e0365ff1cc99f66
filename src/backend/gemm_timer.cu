// SPDX-License-Identifier: Apache-2.0
// cuBLAS GEMM timing at exact layer shapes.
#include <algorithm>
#include <chrono>

#include "backend/cublas_library.cuh"
#include "backend/cuda_handles.cuh"
#include "backend/gemm_timer.h"
#include "core/error.h"
#include "core/stats.h"

namespace pipebench {
namespace {

constexpr int kSustainedWarmupMs = 300;  // of back-to-back passes before the timed ones

void check_cublas(cublasStatus_t rc, const char* call) {
  if (rc != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string(call) + " failed: cuBLAS status " + std::to_string(static_cast<int>(rc)));
}

class Blas {
 public:
  explicit Blas(int device) : device_(device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice", "gemm timer");
    check_cublas(cublas_library().create(&h_), "cublasCreate");
  }
  ~Blas() { cublas_library().destroy(h_); }
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  int device_;
  cublasHandle_t h_ = nullptr;
};

cudaDataType_t cuda_type(DType t) { return t == DType::kHalf ? CUDA_R_16F : CUDA_R_16BF; }

struct Buffers3 {
  DeviceMemory a, b, c;
};

Buffers3 buffers_for(const std::vector<GemmShape>& shapes, int device) {
  std::size_t a = 0, b = 0, c = 0;
  for (const auto& s : shapes) {
    a = std::max<std::size_t>(a, static_cast<std::size_t>(s.m * s.k * s.batch) * 2);
    b = std::max<std::size_t>(b, static_cast<std::size_t>(s.k * s.n * s.batch) * 2);
    c = std::max<std::size_t>(c, static_cast<std::size_t>(s.m * s.n * s.batch) * 2);
  }
  Buffers3 out;
  for (auto [bytes, slot] : {std::pair<std::size_t, DeviceMemory*>{a, &out.a}, {b, &out.b}, {c, &out.c}}) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes), "cudaMalloc", "gemm timer");
    check_cuda(cudaMemset(p, 0, bytes), "cudaMemset", "gemm timer");
    *slot = DeviceMemory(p, device);
  }
  return out;
}

void gemm(cublasHandle_t h, const GemmShape& s, DType t, const Buffers3& buf) {
  const float one = 1.0f, zero = 0.0f;
  // Column-major C^T[n,m] = B^T[n,k] A^T[k,m]: the row-major product C[m,n] = A[m,k] B[k,n].
  check_cublas(cublas_library().gemm_strided_batched_ex(
                   h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m), static_cast<int>(s.k),
                   &one, buf.b.get(), cuda_type(t), static_cast<int>(s.n), s.k * s.n, buf.a.get(), cuda_type(t),
                   static_cast<int>(s.k), s.m * s.k, &zero, buf.c.get(), cuda_type(t), static_cast<int>(s.n), s.m * s.n,
                   static_cast<int>(s.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
}

}  // namespace

double time_gemms_ms(const std::vector<GemmShape>& shapes, DType t, int device, int reps) {
  Blas blas(device);
  const Buffers3 buf = buffers_for(shapes, device);
  const CudaEvent start = cuda_event(device, "gemm timer"), stop = cuda_event(device, "gemm timer");
  // Warm up for a sustained stretch, not 3 passes: a replay runs GEMMs for seconds, at the clock the
  // GPU holds under load, which a short burst after idle overstates (boost, power and thermal limits).
  const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSustainedWarmupMs);
  do {
    for (const auto& s : shapes) gemm(blas.get(), s, t, buf);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "gemm timer");
  } while (std::chrono::steady_clock::now() < warm_until);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    check_cuda(cudaEventRecord(start.get()), "cudaEventRecord", "gemm timer");
    for (const auto& s : shapes) gemm(blas.get(), s, t, buf);
    check_cuda(cudaEventRecord(stop.get()), "cudaEventRecord", "gemm timer");
    check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", "gemm timer");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", "gemm timer");
    samples.push_back(ms);
  }
  return summarize(samples).median_us;  // the values are ms; summarize is unit-agnostic
}

double bare_gemm_loop_ms(const GemmShape& shape, DType t, int device, int iters) {
  Blas blas(device);
  const Buffers3 buf = buffers_for({shape}, device);
  for (int w = 0; w < 3; ++w) gemm(blas.get(), shape, t, buf);
  const CudaEvent start = cuda_event(device, "gemm loop"), stop = cuda_event(device, "gemm loop");
  check_cuda(cudaEventRecord(start.get()), "cudaEventRecord", "gemm loop");
  for (int i = 0; i < iters; ++i) gemm(blas.get(), shape, t, buf);
  check_cuda(cudaEventRecord(stop.get()), "cudaEventRecord", "gemm loop");
  check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", "gemm loop");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", "gemm loop");
  return ms / iters;
}

}  // namespace pipebench
