// SPDX-License-Identifier: Apache-2.0
// The terms of backend/pass_costs.h, on one GPU with a one-rank NCCL communicator (a send to itself and a
// receive from itself in one group: the P2P kernel Megatron's batched calls run, on the same SMs).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "backend/gemm_launch.cuh"
#include "backend/pass_costs.h"
#include "core/error.h"

namespace pipebench {
namespace {

constexpr int kWarmupCalls = 5;
constexpr int kSustainedWarmupMs = 300;  // of back-to-back GEMMs first, at the clock the GPU holds under load
constexpr std::int64_t kMaxBesideCalls = 10000;

__global__ void empty_kernel() {}

class PassCostBench {
 public:
  explicit PassCostBench(const PassCostRequest& r)
      : r_(r),
        where_("the pass-cost measurement on GPU " + std::to_string(r.device)),
        blas_(r.device),
        gemm_buffers_(gemm_buffers_for(r.gemms, r.device)),
        compute_(cuda_stream(r.device, where_)),
        comm_(cuda_stream(r.device, where_)),
        e0_(cuda_event(r.device, where_)),
        e1_(cuda_event(r.device, where_)),
        e2_(cuda_event(r.device, where_)) {
    int device = r.device;
    ncclComm_t n = nullptr;
    check_nccl(ncclCommInitAll(&n, 1, &device), "ncclCommInitAll", where_);
    nccl_ = NcclComm(n, r.device);
    for (DeviceMemory* slot : {&send_, &recv_}) {
      void* p = nullptr;
      check_cuda(cudaMalloc(&p, static_cast<std::size_t>(r.p2p_bytes)), "cudaMalloc", where_);
      *slot = DeviceMemory(p, r.device);
    }
    blas_.set_stream(compute_.get());
  }

  // The call as Megatron issues it (batch_isend_irecv, then torch.cuda.synchronize()), timed three ways.
  void time_calls(PassCosts& out) {
    std::vector<double> device_us, host_us, gap_us;
    for (int i = 0; i < kWarmupCalls + r_.reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      record(e0_, compute_);
      post_call(compute_.get());
      record(e1_, compute_);
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", where_);
      const auto t1 = std::chrono::steady_clock::now();
      // The next pass: its first work reaches the GPU once the host is back from the synchronisation.
      record(e2_, compute_);
      empty_kernel<<<1, 1, 0, compute_.get()>>>();
      check_cuda(cudaGetLastError(), "empty_kernel launch", where_);
      check_cuda(cudaStreamSynchronize(compute_.get()), "cudaStreamSynchronize", where_);
      if (i < kWarmupCalls) continue;
      device_us.push_back(elapsed_us(e0_, e1_));
      host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      gap_us.push_back(elapsed_us(e1_, e2_));
    }
    out.call_device_us = summarize(device_us);
    out.call_host_us = summarize(host_us);
    out.sync_gap_us = summarize(gap_us);
  }

  // The layer's forward GEMMs alone, then with calls queued on the comm stream, one batch before each GEMM
  // (with CUDA_DEVICE_MAX_CONNECTIONS=1 the GPU takes the streams' work in the order it was queued).
  void time_gemms(PassCosts& out) {
    const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSustainedWarmupMs);
    do {
      gemm_pass(0);
      check_cuda(cudaStreamSynchronize(compute_.get()), "cudaStreamSynchronize", where_);
    } while (std::chrono::steady_clock::now() < warm_until);
    std::vector<double> alone;
    for (int i = 0; i < r_.reps; ++i) alone.push_back(timed_gemm_pass(0));
    out.gemm_alone_us = summarize(alone);
    // Enough calls to keep NCCL's kernel running for one and a half passes.
    const double call_us = std::max(out.call_device_us.median_us, 1.0);
    const auto calls = static_cast<std::int64_t>(std::ceil(1.5 * out.gemm_alone_us.median_us / call_us));
    const std::int64_t per_gemm =
        std::clamp<std::int64_t>(calls / static_cast<std::int64_t>(r_.gemms.size()) + 1, 1, kMaxBesideCalls);
    out.nccl_beside_us = static_cast<double>(per_gemm) * static_cast<double>(r_.gemms.size()) * call_us;
    std::vector<double> beside;
    for (int i = 0; i < r_.reps; ++i) beside.push_back(timed_gemm_pass(per_gemm));
    out.gemm_beside_nccl_us = summarize(beside);
  }

 private:
  void record(const CudaEvent& e, const CudaStream& s) {
    check_cuda(cudaEventRecord(e.get(), s.get()), "cudaEventRecord", where_);
  }
  double elapsed_us(const CudaEvent& a, const CudaEvent& b) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, a.get(), b.get()), "cudaEventElapsedTime", where_);
    return static_cast<double>(ms) * 1e3;
  }
  void post_call(cudaStream_t stream) {
    const auto bytes = static_cast<std::size_t>(r_.p2p_bytes);
    check_nccl(ncclGroupStart(), "ncclGroupStart", where_, nccl_.get());
    check_nccl(ncclSend(send_.get(), bytes, ncclInt8, 0, nccl_.get(), stream), "ncclSend", where_, nccl_.get());
    check_nccl(ncclRecv(recv_.get(), bytes, ncclInt8, 0, nccl_.get(), stream), "ncclRecv", where_, nccl_.get());
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", where_, nccl_.get());
  }
  void gemm_pass(std::int64_t calls_per_gemm) {
    for (const GemmShape& s : r_.gemms) {
      for (std::int64_t c = 0; c < calls_per_gemm; ++c) post_call(comm_.get());
      launch_gemm(blas_, s, r_.dtype, gemm_buffers_);
    }
  }
  double timed_gemm_pass(std::int64_t calls_per_gemm) {
    record(e0_, compute_);
    gemm_pass(calls_per_gemm);
    record(e1_, compute_);
    check_cuda(cudaEventSynchronize(e1_.get()), "cudaEventSynchronize", where_);
    check_cuda(cudaStreamSynchronize(comm_.get()), "cudaStreamSynchronize", where_);
    return elapsed_us(e0_, e1_);
  }

  const PassCostRequest& r_;
  std::string where_;
  Blas blas_;
  GemmBuffers gemm_buffers_;
  CudaStream compute_, comm_;
  CudaEvent e0_, e1_, e2_;
  NcclComm nccl_;
  DeviceMemory send_, recv_;
};

}  // namespace

PassCosts measure_pass_costs(const PassCostRequest& request) {
  if (request.gemms.empty()) throw UsageError("pass costs: the plan gives no layer GEMMs to time");
  if (request.p2p_bytes <= 0) throw UsageError("pass costs: the plan has no P2P message to time");
  if (request.reps < 3) throw UsageError("pass costs: need at least 3 samples per term");
  PassCosts out;
  if (const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS")) out.device_max_connections = v;
  out.p2p_bytes = request.p2p_bytes;
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, request.device), "cudaGetDeviceProperties",
             "the pass-cost measurement on GPU " + std::to_string(request.device));
  out.gpu = prop.name;
  PassCostBench bench(request);
  bench.time_calls(out);
  bench.time_gemms(out);
  return out;
}

}  // namespace pipebench
