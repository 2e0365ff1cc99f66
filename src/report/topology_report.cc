// SPDX-License-Identifier: Apache-2.0
// Topology renderers.
#include "report/topology_report.h"

#include <cstdio>
#include <iomanip>
#include <map>

#include "io/provenance_io.h"
#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

std::string cell(const std::string& s, int width) {
  return s.size() >= static_cast<std::size_t>(width) ? s + " "
                                                     : s + std::string(static_cast<std::size_t>(width) - s.size(), ' ');
}

std::string gbps(double g) {
  if (g <= 0) return "?";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", g);
  return buf;
}

nlohmann::json maybe(int v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

void print_topology_text(std::ostream& out, const TopologyView& v) {
  const Topology& t = v.topology;
  const std::size_t n = t.gpus.size(), m = t.nics.size();
  out << "# topology of " << (t.host.empty() ? std::string("this machine") : t.host) << " from " << t.source << "\n";
  if (n == 0) out << "# no GPU found\n";
  out << cell("", 8);
  for (std::size_t j = 0; j < n; ++j) out << cell("GPU" + std::to_string(j), 8);
  for (std::size_t k = 0; k < m; ++k) out << cell("NIC" + std::to_string(k), 8);
  out << cell("CPU Affinity", 16) << "NUMA Affinity\n";
  for (std::size_t i = 0; i < n; ++i) {
    out << cell("GPU" + std::to_string(i), 8);
    for (std::size_t j = 0; j < n; ++j) out << cell(v.gpu_pairs[i * n + j].label(), 8);
    for (std::size_t k = 0; k < m; ++k) out << cell(v.nic_pairs[i * m + k].label(), 8);
    out << cell(t.gpus[i].cpuset.empty() ? "N/A" : t.gpus[i].cpuset, 16)
        << (t.gpus[i].numa >= 0 ? std::to_string(t.gpus[i].numa) : "N/A") << "\n";
  }
  for (std::size_t k = 0; k < m; ++k) {
    out << cell("NIC" + std::to_string(k), 8);
    for (std::size_t i = 0; i < n; ++i) out << cell(v.nic_pairs[i * m + k].label(), 8);
    for (std::size_t l = 0; l < m; ++l) {
      std::string c = "X";
      if (l != k) {
        const int a = t.nics[k].node, b = t.nics[l].node;
        c = a >= 0 && b >= 0 ? class_label(pcie_class(t, a, b), 0) : "SYS";
      }
      out << cell(c, 8);
    }
    out << "\n";
  }
  out << "\nLegend:\n\n"
      << "  X    = Self\n"
      << "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
      << "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA "
         "node\n"
      << "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
      << "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
      << "  PIX  = Connection traversing at most a single PCIe bridge\n"
      << "  NV#  = Connection traversing a bonded set of # NVLinks\n";
  if (m) {
    out << "\nNIC Legend:\n\n";
    for (std::size_t k = 0; k < m; ++k) out << "  NIC" << k << ": " << t.nics[k].name << "\n";
  }
  if (n) {
    out << "\nGPUs and their PCIe links (GB/s per direction, theoretical):\n\n"
        << "  GPU  bus id        CUDA  model                     link now     max          GB/s\n";
    for (const auto& g : t.gpus) {
      const TopoNode& nd = t.nodes[static_cast<std::size_t>(g.node)];
      char buf[256];
      std::snprintf(buf, sizeof buf, "  %-4d %-13s %-5s %-25.25s %-12s %-12s %s\n", g.index, g.bus_id.c_str(),
                    g.cuda_device >= 0 ? std::to_string(g.cuda_device).c_str() : "-", g.model.c_str(),
                    pcie_label(nd.link_gen, nd.link_width).c_str(),
                    pcie_label(nd.link_gen_max, nd.link_width_max).c_str(), gbps(nd.link_gbps).c_str());
      out << buf;
    }
    out << "\nGPU pairs (NCCL path, P2P by NCCL's default, narrowest link on the path in GB/s per direction):\n\n";
    if (n == 1) out << "  (one GPU: no pairs)\n";
    for (const auto& p : v.gpu_pairs) {
      if (p.a >= p.b) continue;
      char buf[160];
      std::snprintf(buf, sizeof buf, "  GPU%d-GPU%d  %-5s  NCCL %-4s  P2P %-3s  %s\n", p.a, p.b, p.label().c_str(),
                    std::string(nccl_path_name(p.cls)).c_str(), p.p2p ? "yes" : "no", gbps(p.path_min_gbps).c_str());
      out << buf;
    }
  }
  if (!t.notes.empty()) {
    out << "\nNotes:\n";
    for (const auto& s : t.notes) out << "  - " << s << "\n";
  }
  out << "\nWarnings:" << (v.warnings.empty() ? " none\n" : "\n");
  for (const auto& s : v.warnings) out << "  ! " << s << "\n";
  out.flush();
}

nlohmann::json topology_to_json(const TopologyView& v) {
  const Topology& t = v.topology;
  nlohmann::json gpus = nlohmann::json::array(), nics = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (const auto& g : t.gpus) {
    const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    gpus.push_back({{"index", g.index},
                    {"bus_id", g.bus_id},
                    {"model", g.model},
                    {"numa", g.numa >= 0 ? nlohmann::json(g.numa) : nlohmann::json(nullptr)},
                    {"cpus", g.cpuset},
                    {"cuda_device", g.cuda_device >= 0 ? nlohmann::json(g.cuda_device) : nlohmann::json(nullptr)},
                    {"pcie_gen", maybe(n.link_gen)},
                    {"pcie_width", maybe(n.link_width)},
                    {"pcie_gen_max", maybe(n.link_gen_max)},
                    {"pcie_width_max", maybe(n.link_width_max)},
                    {"link_gbps", n.link_gbps},
                    {"nvlinks_up", g.nvlinks_up >= 0 ? nlohmann::json(g.nvlinks_up) : nlohmann::json(nullptr)},
                    {"nvlinks_down", g.nvlinks_down >= 0 ? nlohmann::json(g.nvlinks_down) : nlohmann::json(nullptr)}});
  }
  for (const auto& nic : t.nics) {
    nics.push_back({{"name", nic.name},
                    {"bus_id", nic.bus_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(nic.bus_id)},
                    {"numa", nic.numa >= 0 ? nlohmann::json(nic.numa) : nlohmann::json(nullptr)},
                    {"rdma", nic.rdma}});
  }
  auto pair_json = [&](const PairInfo& p) {
    return nlohmann::json{
        {"a", p.a},
        {"b", p.gpu_nic ? nlohmann::json(t.nics[static_cast<std::size_t>(p.b)].name) : nlohmann::json(p.b)},
        {"kind", p.gpu_nic ? "gpu-nic" : "gpu-gpu"},
        {"class", p.label()},
        {"pcie_class", class_label(p.pcie_cls, 0)},
        {"nvlinks", p.nvlinks},
        {"p2p", p.p2p},
        {"nccl_path", std::string(nccl_path_name(p.cls))},
        {"path_min_gbps", p.path_min_gbps > 0 ? nlohmann::json(p.path_min_gbps) : nlohmann::json(nullptr)},
        {"path", p.path}};
  };
  for (const auto& p : v.gpu_pairs) {
    if (p.a == p.b) continue;
    auto j = pair_json(p);
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    auto known = [](int x) { return x >= 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
    j["cuda_peer_access"] = t.p2p_access.empty() ? nlohmann::json(nullptr) : known(t.p2p_access[a][b]);
    j["cuda_p2p_performance_rank"] = t.p2p_rank.empty() ? nlohmann::json(nullptr) : known(t.p2p_rank[a][b]);
    pairs.push_back(j);
  }
  for (const auto& p : v.nic_pairs) pairs.push_back(pair_json(p));
  nlohmann::json doc = {{"schema", kTopologySchema},
                        {"source", t.source},
                        {"host", t.host},
                        {"cpu_vendor", t.cpu_vendor},
                        {"under_load", v.under_load},
                        {"nvlink_known", t.nvlink_known},
                        {"gpus", gpus},
                        {"nics", nics},
                        {"pairs", pairs},
                        {"warnings", v.warnings},
                        {"notes", t.notes}};
  add_provenance(doc);
  return doc;
}

void print_topology_dot(std::ostream& out, const TopologyView& v) {
  const Topology& t = v.topology;
  std::map<int, std::string> label;
  for (const auto& g : t.gpus) label[g.node] = "GPU" + std::to_string(g.index) + "\\n" + g.bus_id + "\\n" + g.model;
  for (std::size_t k = 0; k < t.nics.size(); ++k) {
    if (t.nics[k].node >= 0) label[t.nics[k].node] = "NIC" + std::to_string(k) + "\\n" + t.nics[k].name;
  }
  out << "digraph pcie {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const TopoNode& n = t.nodes[i];
    std::string text = label.count(static_cast<int>(i)) ? label[static_cast<int>(i)]
                       : n.is_switch                    ? "PCIe switch\\n" + n.bus_id
                                                        : n.label;
    const char* style = label.count(static_cast<int>(i)) ? ", style=filled, fillcolor=lightblue"
                        : n.kind == NodeKind::kNormal    ? ", shape=ellipse"
                                                         : "";
    out << "  n" << i << " [label=\"" << text << "\"" << style << "];\n";
    if (n.parent >= 0) {
      out << "  n" << n.parent << " -> n" << i;
      if (n.link_gbps > 0) {
        out << " [label=\"" << gbps(n.link_gbps) << " GB/s";
        if (n.link_gen || n.link_width) out << "\\n" << pcie_label(n.link_gen, n.link_width);
        out << "\"]";
      }
      out << ";\n";
    }
  }
  const std::size_t g = t.gpus.size();
  for (std::size_t i = 0; i < g; ++i) {
    for (std::size_t j = i + 1; j < g; ++j) {
      const int links = t.nvlinks.empty() ? 0 : t.nvlinks[i][j];
      if (links > 0) {
        out << "  n" << t.gpus[i].node << " -> n" << t.gpus[j].node << " [dir=both, color=green, label=\"NV" << links
            << "\"];\n";
      }
    }
  }
  out << "}\n";
}

}  // namespace pipebench
