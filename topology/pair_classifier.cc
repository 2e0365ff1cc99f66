// SPDX-License-Identifier: Apache-2.0
// Pair classes from the PCIe tree (pcie_tree.cc) and the NVLink matrix.
#include "topology/pair_classifier.h"

namespace pipebench {
namespace {

// NCCL's default P2P cut-off is PXB, except x86 AMD CPUs with at most 2 GPUs, where it is SYS
// (NCCL paths.cc ncclTopoCheckP2p; topology.md §2.3).
bool nccl_uses_p2p(const Topology& t, PathClass cls) {
  if (cls <= PathClass::kPxb) return true;
  return t.cpu_vendor == "AuthenticAMD" && t.gpus.size() <= 2;
}

}  // namespace

PathClass pcie_class(const Topology& t, int a, int b) { return PcieTree(t).pcie_class(t, a, b); }

int nvlinks_between(const Topology& t, std::size_t i, std::size_t j) {
  if (i == j || i >= t.nvlinks.size() || j >= t.nvlinks[i].size()) return 0;
  return t.nvlinks[i][j];
}

PairClasses classify_gpu_pairs(const Topology& t, const PcieTree& tree) {
  const std::size_t n = t.gpus.size();
  PairClasses out(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    out.set(i, i, PathClass::kSelf);
    for (std::size_t j = i + 1; j < n; ++j) {
      const PathClass c = tree.pcie_class(t, t.gpus[i].node, t.gpus[j].node);  // symmetric
      out.set(i, j, c);
      out.set(j, i, c);
    }
  }
  return out;
}

PairClasses classify_gpu_nic_pairs(const Topology& t, const PcieTree& tree) {
  PairClasses out(t.gpus.size(), t.nics.size());
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
      const int nic_node = t.nics[k].node;
      // A NIC with no PCI path (NCCL XML <nic> under a <cpu>): same NUMA node is PHB, else SYS.
      out.set(i, k,
              nic_node >= 0                                             ? tree.pcie_class(t, t.gpus[i].node, nic_node)
              : t.nics[k].numa >= 0 && t.nics[k].numa == t.gpus[i].numa ? PathClass::kPhb
                                                                        : PathClass::kSys);
    }
  }
  return out;
}

PairInfo gpu_pair_info(const Topology& t, const PcieTree& tree, const PairClasses& classes, std::size_t i,
                       std::size_t j, bool with_path) {
  PairInfo p;
  p.a = static_cast<int>(i);
  p.b = static_cast<int>(j);
  p.pcie_cls = classes.at(i, j);
  p.nvlinks = nvlinks_between(t, i, j);
  p.cls = p.nvlinks > 0 ? PathClass::kNvLink : p.pcie_cls;
  if (i == j) return p;
  const int na = t.gpus[i].node, nb = t.gpus[j].node;
  p.path_min_gbps = p.nvlinks > 0 ? p.nvlinks * t.nvlink_gbps_per_link : tree.path_min_gbps(t, na, nb);
  p.p2p = nccl_uses_p2p(t, p.cls);
  // CUDA says no peer access: NCCL cannot use P2P whatever the path.
  if (i < t.p2p_access.size() && j < t.p2p_access[i].size() && t.p2p_access[i][j] == 0) p.p2p = false;
  if (with_path) {
    p.path = p.nvlinks > 0 ? std::vector<std::string>{"nvlink:" + std::to_string(i) + "->" + std::to_string(j)}
                           : tree.path_links(t, na, nb);
  }
  return p;
}

PairInfo nic_pair_info(const Topology& t, const PcieTree& tree, const PairClasses& classes, std::size_t i,
                       std::size_t k) {
  PairInfo p;
  p.gpu_nic = true;
  p.a = static_cast<int>(i);
  p.b = static_cast<int>(k);
  p.pcie_cls = p.cls = classes.at(i, k);
  if (t.nics[k].node >= 0) p.path_min_gbps = tree.path_min_gbps(t, t.gpus[i].node, t.nics[k].node);
  p.p2p = p.cls <= PathClass::kPxb;  // GPUDirect RDMA default: NCCL_NET_GDR_LEVEL = PXB
  return p;
}

}  // namespace pipebench
