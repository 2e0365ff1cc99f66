// SPDX-License-Identifier: Apache-2.0
// Pair classes for every GPU x GPU and GPU x NIC pair with nvidia-smi's definitions (topology.md §1.5,
// §2.1), the NCCL path name, whether NCCL would use P2P (GPUs) or GPUDirect RDMA (NICs) by default,
// and the theoretical bandwidth of the narrowest link on the path.
#pragma once

#include <string>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

struct PairInfo {
  bool gpu_nic = false;
  int a = 0;                             // GPU index
  int b = 0;                             // GPU index, or NIC index when gpu_nic
  PathClass cls = PathClass::kSys;       // NVLink wins over PCIe
  PathClass pcie_cls = PathClass::kSys;  // the same with NVLink ignored
  int nvlinks = 0;
  bool p2p = false;
  double path_min_gbps = 0;  // 0 = unknown
  // The links a transfer from a to b crosses, each named after the object below it and the direction
  // ("up:pcie:0000:18:00.0", "down:pcie:HostBridge 0000:[00-08]"), or "nvlink:i->j". Transfers whose
  // paths share a link compete for it.
  std::vector<std::string> path;
  [[nodiscard]] std::string label() const { return class_label(cls, nvlinks); }
};

// The PCIe class of two tree nodes (no NVLink). Uses its own parent-chain walk: hwloc's
// hwloc_get_common_ancestor_obj() is unsafe for I/O objects at different depths (topology.md §0).
[[nodiscard]] PathClass pcie_class(const Topology& t, int node_a, int node_b);

// The narrowest known link between two tree nodes below their common ancestor; 0 when unknown.
[[nodiscard]] double pcie_path_min_gbps(const Topology& t, int node_a, int node_b);

// The PCIe links between two tree nodes below their common ancestor (see PairInfo::path).
[[nodiscard]] std::vector<std::string> pcie_path_links(const Topology& t, int node_a, int node_b);

// Every ordered GPU pair (i, j), row-major, diagonal included.
[[nodiscard]] std::vector<PairInfo> classify_gpu_pairs(const Topology& t);
// Every GPU x NIC pair, GPU-major.
[[nodiscard]] std::vector<PairInfo> classify_gpu_nic_pairs(const Topology& t);

}  // namespace pipebench
