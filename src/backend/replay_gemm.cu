// SPDX-License-Identifier: Apache-2.0
// --compute gemm: the layer's GEMMs with cuBLAS on the replay's compute stream.
#include <algorithm>
#include <cmath>

#include "backend/gemm_steps.h"
#include "backend/replay_gemm.h"
#include "core/error.h"

#if PB_HAVE_CUBLAS
#include "backend/cublas_library.cuh"
#include "backend/cuda_handles.cuh"
#endif

namespace pipebench {

#if PB_HAVE_CUBLAS
namespace {

void check_blas(cublasStatus_t rc, const char* call) {
  if (rc != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("replay --compute gemm: ") + call + " failed: cuBLAS status " +
                std::to_string(static_cast<int>(rc)));
}

}  // namespace

struct ReplayGemm::Impl {
  std::vector<GemmShape> layer;
  cudaDataType_t type = CUDA_R_16F;
  std::int64_t layer_fwd_ns = 0;
  int device = 0;
  cublasHandle_t blas = nullptr;
  void *a = nullptr, *b = nullptr, *c = nullptr;

  ~Impl() {
    if (blas) cublas_library().destroy(blas);
    for (void* p : {a, b, c}) {
      if (p) cudaFree(p);
    }
  }

  void* alloc(std::size_t bytes) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)), "cudaMalloc", "replay --compute gemm");
    check_cuda(cudaMemset(p, 0, std::max<std::size_t>(bytes, 16)), "cudaMemset", "replay --compute gemm");
    return p;
  }
};

ReplayGemm::ReplayGemm(std::vector<GemmShape> layer, DType t, int device, std::int64_t layer_fwd_ns)
    : impl_(std::make_unique<Impl>()) {
  if (layer.empty()) throw UsageError("--compute gemm: the plan gives no layer GEMMs");
  impl_->layer = std::move(layer);
  impl_->type = t == DType::kHalf ? CUDA_R_16F : CUDA_R_16BF;
  impl_->layer_fwd_ns = layer_fwd_ns;
  impl_->device = device;
  check_cuda(cudaSetDevice(device), "cudaSetDevice", "replay --compute gemm");
  check_blas(cublas_library().create(&impl_->blas), "cublasCreate");
  std::size_t a = 0, b = 0, c = 0;  // 2-byte elements; 64-bit products (shapes are < 2^31 per side)
  for (const auto& s : impl_->layer) {
    a = std::max(a,
                 static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.batch) * 2);
    b = std::max(b,
                 static_cast<std::size_t>(s.k) * static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.batch) * 2);
    c = std::max(c,
                 static_cast<std::size_t>(s.m) * static_cast<std::size_t>(s.n) * static_cast<std::size_t>(s.batch) * 2);
  }
  impl_->a = impl_->alloc(a);
  impl_->b = impl_->alloc(b);
  impl_->c = impl_->alloc(c);
}

ReplayGemm::~ReplayGemm() = default;

void ReplayGemm::run(void* stream, std::int64_t duration_ns) {
  Impl& g = *impl_;
  check_blas(cublas_library().set_stream(g.blas, static_cast<cudaStream_t>(stream)), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  const auto gemm = [&](const GemmShape& s) {
    // Column-major C^T[n,m] = B^T[n,k] A^T[k,m]: the row-major product C[m,n] = A[m,k] B[k,n] (as gemm_timer).
    check_blas(cublas_library().gemm_strided_batched_ex(
                   g.blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(s.n), static_cast<int>(s.m),
                   static_cast<int>(s.k), &one, g.b, g.type, static_cast<int>(s.n), s.k * s.n, g.a, g.type,
                   static_cast<int>(s.k), s.m * s.k, &zero, g.c, g.type, static_cast<int>(s.n), s.m * s.n,
                   static_cast<int>(s.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  };
  const GemmStep step = gemm_step(duration_ns, g.layer_fwd_ns, g.layer);
  for (std::int64_t p = 0; p < step.passes; ++p) {
    for (const auto& s : g.layer) gemm(s);
  }
  for (std::size_t i : step.extra) gemm(g.layer[i]);
}

#else

struct ReplayGemm::Impl {};

ReplayGemm::ReplayGemm(std::vector<GemmShape>, DType, int, std::int64_t) {
  throw UsageError("--compute gemm: this pipebench was built without cuBLAS (use --compute spin)");
}
ReplayGemm::~ReplayGemm() = default;
void ReplayGemm::run(void*, std::int64_t) {}

#endif

}  // namespace pipebench
