// SPDX-License-Identifier: Apache-2.0
// An index of a Topology's tree for answering pair questions in O(depth) without allocating: each
// node's depth, the PCIe switches on its chain to the root and its first normal (CPU-side) ancestor.
// Built once per topology in O(nodes), so that classifying every pair of N devices costs O(N^2 x depth)
// (a 4096-GPU tree is about 6 levels deep) instead of two chain vectors and a set per pair.
#pragma once

#include <string>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

class PcieTree {
 public:
  PcieTree() = default;
  explicit PcieTree(const Topology& t);

  // The lowest node above or at both a and b, -1 when they share none.
  [[nodiscard]] int common_ancestor(int a, int b) const;
  // The recipe of topology.md §1.5 (nvidia-smi's PIX/PXB/PHB/NODE/SYS, no NVLink). Walks the parent
  // chain itself: hwloc_get_common_ancestor_obj() is unsafe for I/O objects at different depths (§0).
  [[nodiscard]] PathClass pcie_class(const Topology& t, int a, int b) const;
  // The narrowest known link below the common ancestor, theoretical GB/s per direction; 0 when unknown.
  [[nodiscard]] double path_min_gbps(const Topology& t, int a, int b) const;
  // The links a transfer from a to b crosses (see PairInfo::path).
  [[nodiscard]] std::vector<std::string> path_links(const Topology& t, int a, int b) const;

 private:
  std::vector<int> parent_;    // -1 for a root
  std::vector<int> depth_;     // the root is 0
  std::vector<int> switches_;  // PCIe switches on the chain from the node to the root, both included
  std::vector<int> normal_;    // the first normal object at or above the node, -1 when none
};

}  // namespace pipebench
