// SPDX-License-Identifier: Apache-2.0
// Classification recipe of topology.md §1.5, validated there against NVIDIA's published DGX-2 matrix.
#include "topology/pair_classifier.h"

#include <algorithm>
#include <set>

namespace pipebench {
namespace {

std::vector<int> chain(const Topology& t, int node) {
  std::vector<int> out;
  for (int x = node; x >= 0; x = t.nodes[static_cast<std::size_t>(x)].parent) out.push_back(x);
  return out;
}

int common_ancestor(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return x;
  }
  return -1;
}

// The first normal (CPU-side) object above a node: its NUMA set is the device's locality.
const TopoNode* normal_ancestor(const Topology& t, const std::vector<int>& path) {
  for (int x : path) {
    if (t.nodes[static_cast<std::size_t>(x)].kind == NodeKind::kNormal) return &t.nodes[static_cast<std::size_t>(x)];
  }
  return nullptr;
}

// NCCL's default P2P cut-off is PXB, except x86 AMD CPUs with at most 2 GPUs, where it is SYS
// (NCCL paths.cc ncclTopoCheckP2p; topology.md §2.3).
bool nccl_uses_p2p(const Topology& t, PathClass cls) {
  if (cls <= PathClass::kPxb) return true;
  return t.cpu_vendor == "AuthenticAMD" && t.gpus.size() <= 2;
}

}  // namespace

PathClass pcie_class(const Topology& t, int a, int b) {
  if (a == b) return PathClass::kSelf;
  const auto ca = chain(t, a), cb = chain(t, b);
  const int anc = common_ancestor(ca, cb);
  if (anc < 0) return PathClass::kSys;
  const TopoNode& n = t.nodes[static_cast<std::size_t>(anc)];
  switch (n.kind) {
    case NodeKind::kDevice:
      return PathClass::kPix;  // functions of one device (HCA ports)
    case NodeKind::kHostBridge:
      return PathClass::kPhb;
    case NodeKind::kBridge: {
      std::set<int> switches;
      for (const auto* path : {&ca, &cb}) {
        for (int x : *path) {
          if (t.nodes[static_cast<std::size_t>(x)].is_switch) switches.insert(x);
          if (x == anc) break;
        }
      }
      return switches.size() >= 2 ? PathClass::kPxb : PathClass::kPix;
    }
    case NodeKind::kNormal: {
      if (n.ncclish_cpu) return PathClass::kPhb;
      const TopoNode* na = normal_ancestor(t, ca);
      const TopoNode* nb = normal_ancestor(t, cb);
      return na && nb && na->numa == nb->numa && !na->numa.empty() ? PathClass::kNode : PathClass::kSys;
    }
  }
  return PathClass::kSys;
}

double pcie_path_min_gbps(const Topology& t, int a, int b) {
  const auto ca = chain(t, a), cb = chain(t, b);
  const int anc = common_ancestor(ca, cb);
  double least = 0;
  for (const auto* path : {&ca, &cb}) {
    for (int x : *path) {
      if (x == anc) break;
      const double g = t.nodes[static_cast<std::size_t>(x)].link_gbps;
      if (g > 0 && (least == 0 || g < least)) least = g;
    }
  }
  return least;
}

std::vector<std::string> pcie_path_links(const Topology& t, int a, int b) {
  const auto ca = chain(t, a), cb = chain(t, b);
  const int anc = common_ancestor(ca, cb);
  std::vector<std::string> links;
  // PCIe is full duplex: a's side is crossed upwards, b's side downwards, and the two directions of a
  // link are separate resources.
  for (const auto* path : {&ca, &cb}) {
    const char* dir = path == &ca ? "up:" : "down:";
    for (int x : *path) {
      if (x == anc) break;
      const TopoNode& n = t.nodes[static_cast<std::size_t>(x)];
      links.push_back(std::string(dir) + "pcie:" + (n.bus_id.empty() ? n.label : n.bus_id));
    }
  }
  return links;
}

std::vector<PairInfo> classify_gpu_pairs(const Topology& t) {
  std::vector<PairInfo> out;
  const int n = static_cast<int>(t.gpus.size());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      PairInfo p;
      p.a = i;
      p.b = j;
      const int na = t.gpus[static_cast<std::size_t>(i)].node, nb = t.gpus[static_cast<std::size_t>(j)].node;
      p.pcie_cls = i == j ? PathClass::kSelf : pcie_class(t, na, nb);
      p.nvlinks =
          i != j && !t.nvlinks.empty() ? t.nvlinks[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] : 0;
      p.cls = p.nvlinks > 0 ? PathClass::kNvLink : p.pcie_cls;
      p.path_min_gbps = i == j ? 0 : p.nvlinks > 0 ? p.nvlinks * t.nvlink_gbps_per_link : pcie_path_min_gbps(t, na, nb);
      p.p2p = i != j && nccl_uses_p2p(t, p.cls);
      if (i != j) {
        p.path = p.nvlinks > 0 ? std::vector<std::string>{"nvlink:" + std::to_string(i) + "->" + std::to_string(j)}
                               : pcie_path_links(t, na, nb);
      }
      if (i != j && !t.p2p_access.empty() &&
          t.p2p_access[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] == 0) {
        p.p2p = false;  // CUDA says no peer access: NCCL cannot use P2P whatever the path
      }
      out.push_back(p);
    }
  }
  return out;
}

std::vector<PairInfo> classify_gpu_nic_pairs(const Topology& t) {
  std::vector<PairInfo> out;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
      PairInfo p;
      p.gpu_nic = true;
      p.a = static_cast<int>(i);
      p.b = static_cast<int>(k);
      const int nic_node = t.nics[k].node;
      if (nic_node < 0) {
        // A NIC with no PCI path (NCCL XML <nic> under a <cpu>): same NUMA node is PHB, else SYS.
        p.pcie_cls = t.nics[k].numa >= 0 && t.nics[k].numa == t.gpus[i].numa ? PathClass::kPhb : PathClass::kSys;
      } else {
        p.pcie_cls = pcie_class(t, t.gpus[i].node, nic_node);
        p.path_min_gbps = pcie_path_min_gbps(t, t.gpus[i].node, nic_node);
      }
      p.cls = p.pcie_cls;
      p.p2p = p.cls <= PathClass::kPxb;  // GPUDirect RDMA default: NCCL_NET_GDR_LEVEL = PXB
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace pipebench
