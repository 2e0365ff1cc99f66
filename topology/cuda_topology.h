// SPDX-License-Identifier: Apache-2.0
// What discovery asks CUDA (device <-> bus id, peer access) and a copy load that keeps PCIe links awake
// while their state is sampled. Declared here, below backend, and implemented by it
// (src/backend/cuda_topology.cu), so that topology includes nothing above itself. Plain C++ header;
// called only where CUDA is built (PB_HAVE_NCCL).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pipebench {

struct CudaDeviceInfo {
  int device = 0;
  std::string bus_id;  // normalised "0000:18:00.0"
  std::string name;
};

// Every visible device; empty when CUDA sees none.
[[nodiscard]] std::vector<CudaDeviceInfo> cuda_devices();
// cudaDeviceCanAccessPeer(a, b): 1 or 0; -1 when it cannot be asked.
[[nodiscard]] int cuda_can_access_peer(int a, int b);
// cudaDevP2PAttrPerformanceRank of (a, b): relative, lower is better; -1 when it cannot be asked.
[[nodiscard]] int cuda_p2p_performance_rank(int a, int b);

// Host<->device copies on every given device until destroyed (idle GPUs drop their PCIe link to Gen1
// on purpose; a running copy brings it up to what it can train to).
class CopyLoad {
 public:
  explicit CopyLoad(const std::vector<int>& devices);
  ~CopyLoad();
  CopyLoad(const CopyLoad&) = delete;
  CopyLoad& operator=(const CopyLoad&) = delete;
  // Bytes per second moved so far, summed over devices (evidence that the load really ran).
  [[nodiscard]] double bytes_per_second() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipebench
