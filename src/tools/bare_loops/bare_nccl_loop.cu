// SPDX-License-Identifier: Apache-2.0
// The bare NCCL reference loop of `make bench`.
#include <algorithm>
#include <vector>

#include "backend/cuda_handles.cuh"
#include "core/stats.h"
#include "tools/bare_loops/bare_loop.h"

namespace pipebench {

struct BareNcclLoop::Impl {
  std::vector<int> devices;
  std::vector<NcclComm> comms;
  std::vector<CudaStream> streams;
  std::vector<DeviceMemory> send, recv;
  std::size_t capacity = 0;
};

BareNcclLoop::BareNcclLoop(int gpus) : impl_(std::make_unique<Impl>()) {
  const std::string where = "bare loop";
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
  for (int d = 0; d < gpus; ++d) impl_->devices.push_back(d);
  check_nccl(ncclCommInitAll(comms.data(), gpus, impl_->devices.data()), "ncclCommInitAll", where);
  for (int d = 0; d < gpus; ++d) {
    impl_->comms.emplace_back(comms[static_cast<std::size_t>(d)], d);
    check_cuda(cudaSetDevice(d), "cudaSetDevice", where);
    cudaStream_t s = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", where);
    impl_->streams.emplace_back(s, d);
  }
}

BareNcclLoop::~BareNcclLoop() = default;

double BareNcclLoop::median_us(std::size_t bytes, int iters, int reps, bool graph) {
  const std::string where = "bare loop";
  auto& m = *impl_;
  const std::size_t n = m.devices.size();
  if (bytes > m.capacity) {
    m.send.clear();
    m.recv.clear();
    for (std::size_t i = 0; i < n; ++i) {
      check_cuda(cudaSetDevice(m.devices[i]), "cudaSetDevice", where);
      void *a = nullptr, *b = nullptr;
      check_cuda(cudaMalloc(&a, bytes), "cudaMalloc", where);
      m.send.emplace_back(a, m.devices[i]);
      check_cuda(cudaMalloc(&b, bytes), "cudaMalloc", where);
      m.recv.emplace_back(b, m.devices[i]);
    }
    m.capacity = bytes;
  }
  const std::size_t count = bytes / sizeof(float);
  auto issue = [&] {
    check_nccl(ncclGroupStart(), "ncclGroupStart", where);
    for (std::size_t i = 0; i < n; ++i) {
      check_nccl(ncclAllReduce(m.send[i].get(), m.recv[i].get(), count, ncclFloat32, ncclSum, m.comms[i].get(),
                               m.streams[i].get()),
                 "ncclAllReduce", where);
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", where);
  };
  auto sync = [&] {
    for (std::size_t i = 0; i < n; ++i) check_cuda(cudaStreamSynchronize(m.streams[i].get()), "sync", where);
  };
  for (int i = 0; i < 5; ++i) issue();
  sync();
  std::vector<GraphExec> graphs;
  if (graph) {
    for (std::size_t i = 0; i < n; ++i) {
      check_cuda(cudaSetDevice(m.devices[i]), "cudaSetDevice", where);
      check_cuda(cudaStreamBeginCapture(m.streams[i].get(), cudaStreamCaptureModeThreadLocal), "capture", where);
    }
    for (int i = 0; i < iters; ++i) issue();
    for (std::size_t i = 0; i < n; ++i) {
      cudaGraph_t g = nullptr;
      check_cuda(cudaStreamEndCapture(m.streams[i].get(), &g), "cudaStreamEndCapture", where);
      cudaGraphExec_t e = nullptr;
      check_cuda(cudaGraphInstantiate(&e, g, 0), "cudaGraphInstantiate", where);
      cudaGraphDestroy(g);
      graphs.emplace_back(e, m.devices[i]);
    }
  }
  std::vector<CudaEvent> start, stop;
  for (std::size_t i = 0; i < n; ++i) {
    check_cuda(cudaSetDevice(m.devices[i]), "cudaSetDevice", where);
    cudaEvent_t a = nullptr, b = nullptr;
    check_cuda(cudaEventCreate(&a), "cudaEventCreate", where);
    check_cuda(cudaEventCreate(&b), "cudaEventCreate", where);
    start.emplace_back(a, m.devices[i]);
    stop.emplace_back(b, m.devices[i]);
  }
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t i = 0; i < n; ++i) check_cuda(cudaEventRecord(start[i].get(), m.streams[i].get()), "rec", where);
    if (graph) {
      for (std::size_t i = 0; i < n; ++i)
        check_cuda(cudaGraphLaunch(graphs[i].get(), m.streams[i].get()), "launch", where);
    } else {
      for (int i = 0; i < iters; ++i) issue();
    }
    for (std::size_t i = 0; i < n; ++i) check_cuda(cudaEventRecord(stop[i].get(), m.streams[i].get()), "rec", where);
    sync();
    float longest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, start[i].get(), stop[i].get()), "cudaEventElapsedTime", where);
      longest = std::max(longest, ms);
    }
    samples.push_back(longest * 1e3 / iters);
  }
  return summarize(samples).median_us;
}

}  // namespace pipebench
