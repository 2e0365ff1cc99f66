// SPDX-License-Identifier: Apache-2.0
// Classification recipe of topology.md §1.5, validated there against NVIDIA's published DGX-2 matrix.
#include "topology/pcie_tree.h"

namespace pipebench {

PcieTree::PcieTree(const Topology& t) {
  const std::size_t n = t.nodes.size();
  parent_.assign(n, -1);
  depth_.assign(n, 0);
  switches_.assign(n, 0);
  normal_.assign(n, -1);
  // The readers add a node after its parent (they walk the tree from the root), so one pass in index
  // order sees every parent first; a parent link that points forward (no reader writes one) is cut,
  // which also rules out cycles.
  for (std::size_t x = 0; x < n; ++x) {
    const int p = t.nodes[x].parent;
    const bool has_parent = p >= 0 && static_cast<std::size_t>(p) < x;
    const auto up = static_cast<std::size_t>(has_parent ? p : 0);
    parent_[x] = has_parent ? p : -1;
    depth_[x] = has_parent ? depth_[up] + 1 : 0;
    switches_[x] = (has_parent ? switches_[up] : 0) + (t.nodes[x].is_switch ? 1 : 0);
    normal_[x] = t.nodes[x].kind == NodeKind::kNormal ? static_cast<int>(x) : has_parent ? normal_[up] : -1;
  }
}

int PcieTree::common_ancestor(int a, int b) const {
  while (a >= 0 && b >= 0 && a != b) {
    const int da = depth_[static_cast<std::size_t>(a)], db = depth_[static_cast<std::size_t>(b)];
    if (da >= db) a = parent_[static_cast<std::size_t>(a)];
    if (db >= da) b = parent_[static_cast<std::size_t>(b)];
  }
  return a == b ? a : -1;
}

PathClass PcieTree::pcie_class(const Topology& t, int a, int b) const {
  if (a == b) return PathClass::kSelf;
  const int anc = common_ancestor(a, b);
  if (anc < 0) return PathClass::kSys;
  const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b), uc = static_cast<std::size_t>(anc);
  const TopoNode& n = t.nodes[uc];
  switch (n.kind) {
    case NodeKind::kDevice:
      return PathClass::kPix;  // functions of one device (HCA ports)
    case NodeKind::kHostBridge:
      return PathClass::kPhb;
    case NodeKind::kBridge: {
      // Switches on a's and b's chains below the ancestor, and the ancestor itself when it is one.
      const int below = switches_[ua] + switches_[ub] - 2 * switches_[uc] + (n.is_switch ? 1 : 0);
      return below >= 2 ? PathClass::kPxb : PathClass::kPix;
    }
    case NodeKind::kNormal: {
      if (n.ncclish_cpu) return PathClass::kPhb;
      const int na = normal_[ua], nb = normal_[ub];
      if (na < 0 || nb < 0) return PathClass::kSys;
      const auto& sa = t.nodes[static_cast<std::size_t>(na)].numa;
      return !sa.empty() && sa == t.nodes[static_cast<std::size_t>(nb)].numa ? PathClass::kNode : PathClass::kSys;
    }
  }
  return PathClass::kSys;
}

double PcieTree::path_min_gbps(const Topology& t, int a, int b) const {
  const int anc = common_ancestor(a, b);
  double least = 0;
  for (int start : {a, b}) {
    for (int x = start; x >= 0 && x != anc; x = parent_[static_cast<std::size_t>(x)]) {
      const double g = t.nodes[static_cast<std::size_t>(x)].link_gbps;
      if (g > 0 && (least == 0 || g < least)) least = g;
    }
  }
  return least;
}

std::vector<std::string> PcieTree::path_links(const Topology& t, int a, int b) const {
  const int anc = common_ancestor(a, b);
  std::vector<std::string> links;
  // PCIe is full duplex: a's side is crossed upwards, b's side downwards, and the two directions of a
  // link are separate resources.
  for (int start : {a, b}) {
    const char* dir = start == a ? "up:" : "down:";
    for (int x = start; x >= 0 && x != anc; x = parent_[static_cast<std::size_t>(x)]) {
      const TopoNode& n = t.nodes[static_cast<std::size_t>(x)];
      links.push_back(std::string(dir) + "pcie:" + (n.bus_id.empty() ? n.label : n.bus_id));
    }
  }
  return links;
}

}  // namespace pipebench
