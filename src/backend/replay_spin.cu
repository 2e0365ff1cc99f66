// SPDX-License-Identifier: Apache-2.0
// Spin kernel on %globaltimer (PTX ISA: "a predefined, 64-bit global nanosecond timer").
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "backend/replay_spin.h"

namespace pipebench {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One deadline for the whole launch: the first block to run sets it (start + duration) and publishes it
// through `slot` (epoch claimed, deadline, epoch published); the others read it. Blocks that start late
// (their SM still held by an NCCL kernel) stop at the same deadline instead of spinning a full duration
// from their own start, so the launch lasts duration_ns however its blocks are scheduled.
__global__ void spin_kernel(std::uint64_t duration_ns, unsigned long long* slot, unsigned long long epoch) {
  __shared__ unsigned long long deadline;
  if (threadIdx.x == 0) {
    const unsigned long long now = global_timer_ns();
    if (atomicMax(&slot[0], epoch) < epoch) {
      slot[1] = now + duration_ns;
      __threadfence();
      atomicExch(&slot[2], epoch);
    } else {
      while (atomicAdd(&slot[2], 0ull) < epoch) {
      }
      __threadfence();
    }
    deadline = *static_cast<volatile unsigned long long*>(&slot[1]);
  }
  __syncthreads();
  while (global_timer_ns() < deadline) {
  }
}

const std::string kWhere = "this rank's GPU";

// Queues 16 calls of `neighbour` (256 MiB each) on `stream`.
void enqueue_neighbour(SpinNeighbour neighbour, ncclComm_t n, void* send, void* recv, std::size_t count,
                       cudaStream_t stream) {
  for (int i = 0; i < 16; ++i) {
    if (neighbour == SpinNeighbour::kNcclSendRecv) {
      check_nccl(ncclGroupStart(), "ncclGroupStart", kWhere, n);
      check_nccl(ncclSend(send, count, ncclFloat, 0, n, stream), "ncclSend", kWhere, n);
      check_nccl(ncclRecv(recv, count, ncclFloat, 0, n, stream), "ncclRecv", kWhere, n);
      check_nccl(ncclGroupEnd(), "ncclGroupEnd", kWhere, n);
    } else {
      // ncclAvg, not ncclSum: on one rank NCCL turns a sum into a copy, an average into a kernel.
      check_nccl(ncclAllReduce(send, recv, count, ncclFloat, ncclAvg, n, stream), "ncclAllReduce", kWhere, n);
    }
  }
}

}  // namespace

int device_sms() {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice", kWhere);
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute", kWhere);
  return sms;
}

SpinKernel::SpinKernel() {
  check_cuda(cudaGetDevice(&device_), "cudaGetDevice", kWhere);
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, 3 * sizeof(unsigned long long)), "cudaMalloc", kWhere);
  slot_ = std::shared_ptr<void>(p, [device = device_](void* q) {
    cudaSetDevice(device);
    cudaFree(q);
  });
  check_cuda(cudaMemset(p, 0, 3 * sizeof(unsigned long long)), "cudaMemset", kWhere);
  calibrate();
}

// The span CUDA events see around a launch is the kernel's own duration plus the time from the start
// event to the first block running (launch latency, a few to 15 us on the machines measured). Measure
// that once (median of 21 launches of a 20 us spin on an idle stream) and take it off every request, so
// a compute task of X ms measures X ms between its events.
void SpinKernel::calibrate() {
  cudaStream_t s = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", kWhere);
  CudaStream stream(s, device_);
  const CudaEvent start = cuda_event(device_, kWhere), stop = cuda_event(device_, kWhere);
  constexpr std::int64_t kProbeNs = 20000;
  std::vector<double> over_ns;
  for (int i = 0; i < 21; ++i) {
    check_cuda(cudaEventRecord(start.get(), stream.get()), "cudaEventRecord", kWhere);
    launch(stream.get(), kProbeNs, 0);
    check_cuda(cudaEventRecord(stop.get(), stream.get()), "cudaEventRecord", kWhere);
    check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", kWhere);
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime", kWhere);
    if (i > 0) over_ns.push_back(static_cast<double>(ms) * 1e6 - static_cast<double>(kProbeNs));  // first: warm-up
  }
  std::nth_element(over_ns.begin(), over_ns.begin() + over_ns.size() / 2, over_ns.end());
  overhead_ns_ = std::clamp<std::int64_t>(static_cast<std::int64_t>(over_ns[over_ns.size() / 2]), 0, 100000);
}

void SpinKernel::observe(std::int64_t requested_ns, std::int64_t measured_ns) {
  if (requested_ns <= overhead_ns_) return;  // launched for 1 ns: says nothing about the latency
  // The launch ran requested - overhead; the events saw that plus the latency of this launch.
  const std::int64_t seen_ns = measured_ns - (requested_ns - overhead_ns_);
  if (overheads_ns_.size() == kSamples) overheads_ns_.erase(overheads_ns_.begin());
  overheads_ns_.push_back(std::clamp<std::int64_t>(seen_ns, 0, 100000));
  std::vector<std::int64_t> sorted = overheads_ns_;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  overhead_ns_ = sorted[sorted.size() / 2];
}

void SpinKernel::launch(void* stream, std::int64_t requested_ns, int sms) {
  if (requested_ns <= 0) return;
  const std::int64_t duration_ns = std::max<std::int64_t>(requested_ns - overhead_ns_, 1);
  const int blocks = sms > 0 ? sms : device_sms();
  spin_kernel<<<blocks, 128, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<std::uint64_t>(duration_ns), static_cast<unsigned long long*>(slot_.get()), ++epoch_);
  check_cuda(cudaGetLastError(), "spin_kernel launch", kWhere);
}

std::vector<double> timed_spins_ms(std::int64_t duration_ns, int sms, SpinNeighbour neighbour, int launches) {
  SpinKernel spin;  // calibrated on an idle GPU, before any NCCL work is queued
  cudaStream_t s = nullptr, c = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", kWhere);
  CudaStream compute(s, 0);
  check_cuda(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking), "cudaStreamCreate", kWhere);
  CudaStream comm(c, 0);
  const CudaEvent start = cuda_event(0, kWhere), stop = cuda_event(0, kWhere);
  NcclComm nccl;
  DeviceMemory send, recv;
  const std::size_t count = std::size_t{64} << 20;  // 256 MiB of floats
  if (neighbour != SpinNeighbour::kNone) {
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice", kWhere);
    ncclComm_t n = nullptr;
    check_nccl(ncclCommInitAll(&n, 1, &device), "ncclCommInitAll", kWhere);
    nccl = NcclComm(n, device);
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc", kWhere);
    send = DeviceMemory(p, device);
    check_cuda(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc", kWhere);
    recv = DeviceMemory(p, device);
  }
  // Each launch starts behind 16 queued NCCL calls (about 2.5 ms of work, longer than the spin), so the
  // NCCL kernel runs for the whole launch.
  std::vector<double> ms;
  for (int l = 0; l < launches; ++l) {
    if (neighbour != SpinNeighbour::kNone)
      enqueue_neighbour(neighbour, nccl.get(), send.get(), recv.get(), count, comm.get());
    check_cuda(cudaEventRecord(start.get(), compute.get()), "cudaEventRecord", kWhere);
    spin.launch(compute.get(), duration_ns, sms);
    check_cuda(cudaEventRecord(stop.get(), compute.get()), "cudaEventRecord", kWhere);
    check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", kWhere);
    float elapsed = 0;
    check_cuda(cudaEventElapsedTime(&elapsed, start.get(), stop.get()), "cudaEventElapsedTime", kWhere);
    ms.push_back(static_cast<double>(elapsed));
    spin.observe(duration_ns, static_cast<std::int64_t>(static_cast<double>(elapsed) * 1e6));
  }
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", kWhere);
  return ms;
}

}  // namespace pipebench
