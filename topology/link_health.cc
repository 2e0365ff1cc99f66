// SPDX-License-Identifier: Apache-2.0
// Warnings derived from a Topology and its pair classes.
#include "topology/link_health.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

std::string gbps_text(double g) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", g);
  return buf;
}

// Slowest link speed (GB/s) at or below which no GPU of the last decade is healthy: Gen1 x16 / Gen2 x8.
constexpr double kSlowLinkGbps = 4.0;

using Warnings = std::vector<std::string>;

void warn_links_below_max(const Topology& t, const std::string& idle_note, std::set<int>& reported, Warnings& w) {
  // 1. Links below their maximum, on every GPU's path up to the root complex.
  for (const auto& g : t.gpus) {
    for (int x = g.node; x >= 0; x = t.nodes[static_cast<std::size_t>(x)].parent) {
      const TopoNode& n = t.nodes[static_cast<std::size_t>(x)];
      if (n.kind == NodeKind::kNormal || reported.count(x)) continue;
      const bool gen_low = n.link_gen > 0 && n.link_gen_max > 0 && n.link_gen < n.link_gen_max;
      const bool width_low = n.link_width > 0 && n.link_width_max > 0 && n.link_width < n.link_width_max;
      if (!gen_low && !width_low) continue;
      reported.insert(x);
      const std::string what = x == g.node ? "GPU " + std::to_string(g.index) + " (" + g.bus_id + ")"
                                           : "the " + std::string(n.is_switch ? "PCIe switch" : "bridge") + " " +
                                                 n.bus_id + " above GPU " + std::to_string(g.index);
      w.push_back(what + ": PCIe link runs at " + pcie_label(n.link_gen, n.link_width) + ", its maximum is " +
                  pcie_label(n.link_gen_max, n.link_width_max) + " (" + gbps_text(pcie_gbps(n.link_gen, n.link_width)) +
                  " of " + gbps_text(pcie_gbps(n.link_gen_max, n.link_width_max)) + " GB/s per direction)" + idle_note);
    }
  }
}

void warn_slow_speeds(const Topology& t, const std::string& idle_note, const std::set<int>& reported, Warnings& w) {
  // 2. Speed-only sources (hwloc XML): slow absolute speed, or slower than GPUs of the same model.
  std::map<std::string, double> fastest;
  for (const auto& g : t.gpus) {
    const double s = t.nodes[static_cast<std::size_t>(g.node)].link_gbps;
    fastest[g.model] = std::max(fastest[g.model], s);
  }
  for (const auto& g : t.gpus) {
    const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    if (n.link_gen > 0 || n.link_gbps <= 0 || reported.count(g.node) != 0) continue;  // handled above when gen is known
    if (n.link_gbps <= kSlowLinkGbps) {
      w.push_back("GPU " + std::to_string(g.index) + " (" + g.bus_id + "): PCIe link runs at " +
                  gbps_text(n.link_gbps) + " GB/s per direction, the speed of Gen1 x16 or Gen2 x8" + idle_note);
    } else if (n.link_gbps < fastest[g.model] * 0.99) {
      w.push_back("GPU " + std::to_string(g.index) + " (" + g.bus_id + "): PCIe link runs at " +
                  gbps_text(n.link_gbps) + " GB/s per direction, other " + g.model + " GPUs here run at " +
                  gbps_text(fastest[g.model]) + idle_note);
    }
  }
}

void warn_neighbours_without_p2p(const TopologyView& v, Warnings& w) {
  const Topology& t = v.topology;
  const std::size_t n = t.gpus.size();
  // 3. Pipeline neighbours without P2P: with ranks mapped to GPUs in order, stage i talks to i+1.
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const PairInfo p = v.gpu_pair(i, i + 1, false);
    if (p.p2p) continue;
    const bool cuda_says_no = !t.p2p_access.empty() && t.p2p_access[i][i + 1] == 0;
    w.push_back("GPU " + std::to_string(i) + " and GPU " + std::to_string(i + 1) +
                " (neighbouring pipeline stages when ranks map to GPUs in order) have no P2P: " +
                (cuda_says_no ? "CUDA reports no peer access"
                              : "the path is " + p.label() + " and NCCL's default P2P level is PXB") +
                ", so NCCL stages their transfers through host memory");
  }
}

void warn_numa(const TopologyView& v, Warnings& w) {
  // 4. GPUs of one job on different NUMA nodes.
  const Topology& t = v.topology;
  std::set<int> numas;
  for (const auto& g : t.gpus) numas.insert(g.numa);
  bool any_sys = false;
  for (std::size_t i = 0; i < t.gpus.size() && !any_sys; ++i) {
    for (std::size_t j = 0; j < t.gpus.size() && !any_sys; ++j) {
      any_sys = v.gpu_classes.at(i, j) == PathClass::kSys && nvlinks_between(t, i, j) == 0;
    }
  }
  if (any_sys) {
    w.push_back("the GPUs sit on " + std::to_string(numas.size()) +
                " NUMA nodes: pairs marked SYS cross the CPU interconnect (QPI/UPI/Infinity Fabric)");
  }
}

void warn_far_nics(const TopologyView& v, Warnings& w) {
  const Topology& t = v.topology;
  // 5. An RDMA NIC far from its GPU (plain Ethernet NICs carry no GPUDirect traffic).
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    std::size_t best = t.nics.size();
    for (std::size_t k = 0; k < t.nics.size(); ++k) {
      if (t.nics[k].rdma && (best == t.nics.size() || v.nic_classes.at(i, k) < v.nic_classes.at(i, best))) best = k;
    }
    if (best < t.nics.size() && v.nic_classes.at(i, best) > PathClass::kPxb) {
      w.push_back("GPU " + std::to_string(i) + ": the nearest NIC (" + t.nics[best].name + ") is " +
                  class_label(v.nic_classes.at(i, best), 0) +
                  ", so GPUDirect RDMA is off by default (NCCL_NET_GDR_LEVEL=PXB)");
    }
  }
}

}  // namespace

std::vector<std::string> link_warnings(const TopologyView& v) {
  const Topology& t = v.topology;
  const bool under_load = v.under_load;
  std::vector<std::string> w;
  if (t.gpus.empty()) {
    w.push_back("no GPU found: showing the CPU/NIC view only");
    return w;
  }
  const std::string idle_note =
      under_load ? "" : " (idle GPUs drop their link on purpose: confirm with pipebench topo --under-load)";
  std::set<int> reported;  // tree nodes already warned about
  warn_links_below_max(t, idle_note, reported, w);
  warn_slow_speeds(t, idle_note, reported, w);
  warn_neighbours_without_p2p(v, w);
  warn_numa(v, w);
  warn_far_nics(v, w);
  return w;
}

}  // namespace pipebench
