// SPDX-License-Identifier: Apache-2.0
// Spin kernel on %globaltimer (PTX ISA: "a predefined, 64-bit global nanosecond timer").
#include <string>

#include "backend/cuda_handles.cuh"
#include "backend/replay_spin.h"

namespace pipebench {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Every block spins from its own start; blocks of one launch start together when the GPU is free.
__global__ void spin_kernel(std::uint64_t duration_ns) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < duration_ns) {
  }
}

const std::string kWhere = "this rank's GPU";

}  // namespace

int device_sms() {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice", kWhere);
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute", kWhere);
  return sms;
}

void launch_spin(void* stream, std::int64_t duration_ns, int sms) {
  if (duration_ns <= 0) return;
  const int blocks = sms > 0 ? sms : device_sms();
  spin_kernel<<<blocks, 128, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<std::uint64_t>(duration_ns));
  check_cuda(cudaGetLastError(), "spin_kernel launch", kWhere);
}

double timed_spin_ms(std::int64_t duration_ns, int sms, bool nccl_in_flight) {
  cudaStream_t s = nullptr, c = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", kWhere);
  CudaStream compute(s, 0);
  check_cuda(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking), "cudaStreamCreate", kWhere);
  CudaStream comm(c, 0);
  cudaEvent_t a = nullptr, b = nullptr;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate", kWhere);
  CudaEvent start(a, 0);
  check_cuda(cudaEventCreate(&b), "cudaEventCreate", kWhere);
  CudaEvent stop(b, 0);
  NcclComm nccl;
  DeviceMemory buf;
  const std::size_t count = std::size_t{64} << 20;  // 256 MiB of floats
  if (nccl_in_flight) {
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice", kWhere);
    ncclComm_t n = nullptr;
    check_nccl(ncclCommInitAll(&n, 1, &device), "ncclCommInitAll", kWhere);
    nccl = NcclComm(n, device);
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc", kWhere);
    buf = DeviceMemory(p, device);
    // ncclAvg, not ncclSum: on one rank NCCL turns a sum into a copy or nothing, but launches its
    // oneRankReduce kernel for an average, so a real NCCL kernel is on the GPU beside the spin kernel.
    for (int i = 0; i < 16; ++i) {
      check_nccl(ncclAllReduce(p, p, count, ncclFloat, ncclAvg, n, comm.get()), "ncclAllReduce", kWhere, n);
    }
  }
  check_cuda(cudaEventRecord(start.get(), compute.get()), "cudaEventRecord", kWhere);
  launch_spin(compute.get(), duration_ns, sms);
  check_cuda(cudaEventRecord(stop.get(), compute.get()), "cudaEventRecord", kWhere);
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", kWhere);
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", kWhere);
  return ms;
}

}  // namespace pipebench
