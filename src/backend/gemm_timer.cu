// SPDX-License-Identifier: Apache-2.0
// cuBLAS GEMM timing at exact layer shapes.
#include <algorithm>
#include <chrono>

#include "backend/cuda_handles.cuh"
#include "backend/gemm_launch.cuh"
#include "backend/gemm_timer.h"
#include "core/error.h"
#include "core/stats.h"

namespace pipebench {
namespace {

constexpr int kSustainedWarmupMs = 300;  // of back-to-back passes before the timed ones

}  // namespace

double time_gemms_ms(const std::vector<GemmShape>& shapes, DType t, int device, int reps) {
  Blas blas(device);
  const GemmBuffers buf = gemm_buffers_for(shapes, device);
  const CudaEvent start = cuda_event(device, "gemm timer"), stop = cuda_event(device, "gemm timer");
  // Warm up for a sustained stretch, not 3 passes: a replay runs GEMMs for seconds, at the clock the
  // GPU holds under load, which a short burst after idle overstates (boost, power and thermal limits).
  const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSustainedWarmupMs);
  do {
    for (const auto& s : shapes) launch_gemm(blas, s, t, buf);
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "gemm timer");
  } while (std::chrono::steady_clock::now() < warm_until);
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    check_cuda(cudaEventRecord(start.get()), "cudaEventRecord", "gemm timer");
    for (const auto& s : shapes) launch_gemm(blas, s, t, buf);
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
  const GemmBuffers buf = gemm_buffers_for({shape}, device);
  for (int w = 0; w < 3; ++w) launch_gemm(blas, shape, t, buf);
  const CudaEvent start = cuda_event(device, "gemm loop"), stop = cuda_event(device, "gemm loop");
  check_cuda(cudaEventRecord(start.get()), "cudaEventRecord", "gemm loop");
  for (int i = 0; i < iters; ++i) launch_gemm(blas, shape, t, buf);
  check_cuda(cudaEventRecord(stop.get()), "cudaEventRecord", "gemm loop");
  check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", "gemm loop");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", "gemm loop");
  return ms / iters;
}

}  // namespace pipebench
