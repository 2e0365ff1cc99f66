// SPDX-License-Identifier: Apache-2.0
// CUDA side of topology discovery.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "backend/cuda_handles.cuh"
#include "topology/cuda_topology.h"
#include "topology/topology.h"

namespace pipebench {

std::vector<CudaDeviceInfo> cuda_devices() {
  std::vector<CudaDeviceInfo> out;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return out;
  for (int d = 0; d < n; ++d) {
    char bus[32] = {};
    cudaDeviceProp prop{};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) != cudaSuccess) continue;
    cudaGetDeviceProperties(&prop, d);
    out.push_back({d, normalize_bus_id(bus), prop.name});
  }
  return out;
}

int cuda_can_access_peer(int a, int b) {
  int ok = 0;
  return cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess ? ok : -1;
}

int cuda_p2p_performance_rank(int a, int b) {
  int rank = 0;
  return cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b) == cudaSuccess ? rank : -1;
}

struct CopyLoad::Impl {
  std::atomic<bool> stop{false};
  std::atomic<unsigned long long> bytes{0};
  std::vector<std::thread> threads;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

CopyLoad::CopyLoad(const std::vector<int>& devices) : impl_(std::make_unique<Impl>()) {
  for (int d : devices) {
    impl_->threads.emplace_back([this, d] {
      constexpr std::size_t kBytes = 64u << 20;
      if (cudaSetDevice(d) != cudaSuccess) return;
      void* dev = nullptr;
      void* host = nullptr;
      if (cudaMalloc(&dev, kBytes) != cudaSuccess) return;
      if (cudaMallocHost(&host, kBytes) != cudaSuccess) {
        cudaFree(dev);
        return;
      }
      while (!impl_->stop.load()) {
        if (cudaMemcpy(dev, host, kBytes, cudaMemcpyHostToDevice) != cudaSuccess) break;
        if (cudaMemcpy(host, dev, kBytes, cudaMemcpyDeviceToHost) != cudaSuccess) break;
        impl_->bytes += 2 * kBytes;
      }
      cudaFreeHost(host);
      cudaFree(dev);
    });
  }
}

CopyLoad::~CopyLoad() {
  impl_->stop = true;
  for (auto& t : impl_->threads) t.join();
}

double CopyLoad::bytes_per_second() const {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->start).count();
  return s > 0 ? static_cast<double>(impl_->bytes.load()) / s : 0;
}

}  // namespace pipebench
