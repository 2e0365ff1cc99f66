// SPDX-License-Identifier: Apache-2.0
// Pair classes for every GPU x GPU and GPU x NIC pair with nvidia-smi's definitions (topology.md §1.5,
// §2.1), the NCCL path name, whether NCCL would use P2P (GPUs) or GPUDirect RDMA (NICs) by default,
// and the theoretical bandwidth of the narrowest link on the path.
//
// Scaling: the classes of every pair are kept as one byte per pair (PairClasses); everything else about
// a pair (NVLinks, P2P, the narrowest link, the links crossed) is derived on demand by gpu_pair_info and
// nic_pair_info in O(tree depth), so a 4096-GPU topology holds 16 MiB of classes, not a record per pair.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "topology/pcie_tree.h"
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
  // paths share a link compete for it. Filled only when asked for (with_path).
  std::vector<std::string> path;
  [[nodiscard]] std::string label() const { return class_label(cls, nvlinks); }
};

// The PCIe class (no NVLink) of every (row, column) pair, row-major, one byte each.
class PairClasses {
 public:
  PairClasses() = default;
  PairClasses(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), cls_(rows * cols, PathClass::kSys) {}
  [[nodiscard]] std::size_t rows() const { return rows_; }
  [[nodiscard]] std::size_t cols() const { return cols_; }
  [[nodiscard]] PathClass at(std::size_t r, std::size_t c) const { return cls_[r * cols_ + c]; }
  void set(std::size_t r, std::size_t c, PathClass v) { cls_[r * cols_ + c] = v; }

 private:
  std::size_t rows_ = 0, cols_ = 0;
  std::vector<PathClass> cls_;
};

// The PCIe class of two tree nodes (no NVLink); builds a PcieTree, so for one-off questions only.
[[nodiscard]] PathClass pcie_class(const Topology& t, int node_a, int node_b);

// The PCIe classes of every ordered GPU pair (diagonal kSelf) and of every GPU x NIC pair.
[[nodiscard]] PairClasses classify_gpu_pairs(const Topology& t, const PcieTree& tree);
[[nodiscard]] PairClasses classify_gpu_nic_pairs(const Topology& t, const PcieTree& tree);

// Everything about GPU pair (i, j) / GPU i x NIC k, from the classes computed above.
[[nodiscard]] PairInfo gpu_pair_info(const Topology& t, const PcieTree& tree, const PairClasses& classes, std::size_t i,
                                     std::size_t j, bool with_path);
[[nodiscard]] PairInfo nic_pair_info(const Topology& t, const PcieTree& tree, const PairClasses& classes, std::size_t i,
                                     std::size_t k);

// The NVLinks between GPUs i and j (0 when none or unknown).
[[nodiscard]] int nvlinks_between(const Topology& t, std::size_t i, std::size_t j);

}  // namespace pipebench
