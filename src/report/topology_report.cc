// SPDX-License-Identifier: Apache-2.0
// Topology renderers.
#include "report/topology_report.h"

#include <map>

#include "core/printf_string.h"
#include "io/provenance_io.h"
#include "io/topology_io.h"
#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

// s left-aligned in width columns, and at least one space after it.
std::string cell(const std::string& s, int width) { return printf_string("%-*s ", width - 1, s.c_str()); }

std::string gbps(double g) {
  if (g <= 0) return "?";
  return printf_string("%.1f", g);
}

nlohmann::json maybe(int v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); }

// The label of GPU pair (i, j) as the matrix shows it: NV# when NVLinked, else the PCIe class.
std::string gpu_label(const TopologyView& v, std::size_t i, std::size_t j) {
  const int links = nvlinks_between(v.topology, i, j);
  return links > 0 ? class_label(PathClass::kNvLink, links) : class_label(v.gpu_classes.at(i, j), 0);
}

// nvidia-smi topo -m's matrix, written row by row.
void print_matrix(std::ostream& out, const TopologyView& v) {
  const Topology& t = v.topology;
  const std::size_t n = t.gpus.size(), m = t.nics.size();
  out << cell("", 8);
  for (std::size_t j = 0; j < n; ++j) out << cell("GPU" + std::to_string(j), 8);
  for (std::size_t k = 0; k < m; ++k) out << cell("NIC" + std::to_string(k), 8);
  out << cell("CPU Affinity", 16) << "NUMA Affinity\n";
  for (std::size_t i = 0; i < n; ++i) {
    out << cell("GPU" + std::to_string(i), 8);
    for (std::size_t j = 0; j < n; ++j) out << cell(gpu_label(v, i, j), 8);
    for (std::size_t k = 0; k < m; ++k) out << cell(class_label(v.nic_classes.at(i, k), 0), 8);
    out << cell(t.gpus[i].cpuset.empty() ? "N/A" : t.gpus[i].cpuset, 16)
        << (t.gpus[i].numa >= 0 ? std::to_string(t.gpus[i].numa) : "N/A") << "\n";
  }
  for (std::size_t k = 0; k < m; ++k) {
    out << cell("NIC" + std::to_string(k), 8);
    for (std::size_t i = 0; i < n; ++i) out << cell(class_label(v.nic_classes.at(i, k), 0), 8);
    for (std::size_t l = 0; l < m; ++l) {
      std::string c = "X";
      if (l != k) {
        const int a = t.nics[k].node, b = t.nics[l].node;
        c = a >= 0 && b >= 0 ? class_label(v.tree.pcie_class(t, a, b), 0) : "SYS";
      }
      out << cell(c, 8);
    }
    out << "\n";
  }
}

void print_gpu_links(std::ostream& out, const TopologyView& v) {
  const std::size_t n = v.gpu_count();
  out << "\nGPUs and their PCIe links (GB/s per direction, theoretical):\n\n"
      << "  GPU  bus id        CUDA  model                     link now     max          GB/s\n";
  for (const auto& g : v.topology.gpus) {
    const TopoNode& nd = v.topology.nodes[static_cast<std::size_t>(g.node)];
    out << printf_string("  %-4d %-13s %-5s %-25.25s %-12s %-12s %s\n", g.index, g.bus_id.c_str(),
                         g.cuda_device >= 0 ? std::to_string(g.cuda_device).c_str() : "-", g.model.c_str(),
                         pcie_label(nd.link_gen, nd.link_width).c_str(),
                         pcie_label(nd.link_gen_max, nd.link_width_max).c_str(), gbps(nd.link_gbps).c_str());
  }
  out << "\nGPU pairs (NCCL path, P2P by NCCL's default, narrowest link on the path in GB/s per direction):\n\n";
  if (n == 1) out << "  (one GPU: no pairs)\n";
  if (n > kMaxListedPairGpus) {
    out << "  (" << n * (n - 1) / 2 << " pairs: listed up to " << kMaxListedPairGpus
        << " GPUs; the matrix above has their classes, --format json their P2P and links)\n";
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const PairInfo p = v.gpu_pair(i, j, false);
      out << printf_string("  GPU%d-GPU%d  %-5s  NCCL %-4s  P2P %-3s  %s\n", p.a, p.b, p.label().c_str(),
                           std::string(nccl_path_name(p.cls)).c_str(), p.p2p ? "yes" : "no",
                           gbps(p.path_min_gbps).c_str());
    }
  }
}

}  // namespace

void print_topology_text(std::ostream& out, const TopologyView& v) {
  const Topology& t = v.topology;
  const std::size_t n = t.gpus.size(), m = t.nics.size();
  out << "# topology of " << (t.host.empty() ? std::string("this machine") : t.host) << " from " << t.source << "\n";
  if (n == 0) out << "# no GPU found\n";
  print_matrix(out, v);
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
  if (n) print_gpu_links(out, v);
  if (!t.notes.empty()) {
    out << "\nNotes:\n";
    for (const auto& s : t.notes) out << "  - " << s << "\n";
  }
  out << "\nWarnings:" << (v.warnings.empty() ? " none\n" : "\n");
  for (const auto& s : v.warnings) out << "  ! " << s << "\n";
  out.flush();
}

namespace {

nlohmann::json known(int x) { return x >= 0 ? nlohmann::json(x) : nlohmann::json(nullptr); }

// GPU g's chain as the file writes it: an unknown speed is null.
nlohmann::json chain_json(const Topology& t, const Gpu& g) {
  nlohmann::json chain = nlohmann::json::array();
  for (const ChainLink& c : pcie_chain(t, g)) {
    chain.push_back(
        {{"node", c.node}, {"link", c.link}, {"gbps", c.gbps > 0 ? nlohmann::json(c.gbps) : nlohmann::json(nullptr)}});
  }
  return chain;
}

nlohmann::json gpu_json(const Topology& t, const Gpu& g) {
  const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
  return {{"index", g.index},
          {"bus_id", g.bus_id},
          {"model", g.model},
          {"numa", known(g.numa)},
          {"cpus", g.cpuset},
          {"cuda_device", known(g.cuda_device)},
          {"pcie_gen", maybe(n.link_gen)},
          {"pcie_width", maybe(n.link_width)},
          {"pcie_gen_max", maybe(n.link_gen_max)},
          {"pcie_width_max", maybe(n.link_width_max)},
          {"link_gbps", n.link_gbps},
          {"nvlinks_up", known(g.nvlinks_up)},
          {"nvlinks_down", known(g.nvlinks_down)},
          {"pcie_chain", chain_json(t, g)}};
}

// Everything but the pairs: O(GPUs + NICs) in size.
nlohmann::json topology_head(const TopologyView& v) {
  const Topology& t = v.topology;
  nlohmann::json gpus = nlohmann::json::array(), nics = nlohmann::json::array();
  for (const auto& g : t.gpus) gpus.push_back(gpu_json(t, g));
  for (const auto& nic : t.nics) {
    nics.push_back({{"name", nic.name},
                    {"bus_id", nic.bus_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(nic.bus_id)},
                    {"numa", known(nic.numa)},
                    {"rdma", nic.rdma}});
  }
  nlohmann::json doc = {{"schema", kTopologySchema},
                        {"source", t.source},
                        {"host", t.host},
                        {"cpu_vendor", t.cpu_vendor},
                        {"under_load", v.under_load},
                        {"nvlink_known", t.nvlink_known},
                        {"nvlink_gbps_per_link", t.nvlink_gbps_per_link},
                        {"gpus", gpus},
                        {"nics", nics},
                        {"warnings", v.warnings},
                        {"notes", t.notes}};
  add_provenance(doc);
  return doc;
}

nlohmann::json pair_json(const TopologyView& v, const PairInfo& p) {
  const Topology& t = v.topology;
  nlohmann::json j = {
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
  if (!p.gpu_nic) {
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    j["cuda_peer_access"] = t.p2p_access.empty() ? nlohmann::json(nullptr) : known(t.p2p_access[a][b]);
    j["cuda_p2p_performance_rank"] = t.p2p_rank.empty() ? nlohmann::json(nullptr) : known(t.p2p_rank[a][b]);
  }
  return j;
}

// Calls each(pair) for every listed pair ("pairs"): GPU pairs (a != b) then GPU-NIC pairs, and none
// above kMaxListedPairGpus GPUs.
template <typename Each>
void for_listed_pairs(const TopologyView& v, Each each) {
  const std::size_t n = v.gpu_count(), m = v.nic_count();
  if (n > kMaxListedPairGpus) return;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j) each(pair_json(v, v.gpu_pair(i, j, true)));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < m; ++k) each(pair_json(v, v.nic_pair(i, k)));
  }
}

// Row i of the "pair_matrix" member `kind`: "gpu_gpu" (labels to every GPU) or "gpu_nic" (to every NIC),
// space-separated, or "p2p" (one 1/0 character per GPU).
std::string matrix_row(const TopologyView& v, const std::string& kind, std::size_t i) {
  std::string row;
  const std::size_t cols = kind == "gpu_nic" ? v.nic_count() : v.gpu_count();
  row.reserve(cols * 5);
  for (std::size_t j = 0; j < cols; ++j) {
    if (j && kind != "p2p") row += ' ';
    if (kind == "gpu_gpu") {
      row += gpu_label(v, i, j);
    } else if (kind == "gpu_nic") {
      row += class_label(v.nic_classes.at(i, j), 0);
    } else {
      row += v.gpu_pair(i, j, false).p2p ? '1' : '0';
    }
  }
  return row;
}

constexpr const char* kMatrixKinds[] = {"gpu_gpu", "gpu_nic", "p2p"};

}  // namespace

nlohmann::json topology_to_json(const TopologyView& v) {
  nlohmann::json doc = topology_head(v);
  nlohmann::json pairs = nlohmann::json::array();
  for_listed_pairs(v, [&](nlohmann::json p) { pairs.push_back(std::move(p)); });
  doc["pairs"] = std::move(pairs);
  nlohmann::json matrix = nlohmann::json::object();
  for (const char* kind : kMatrixKinds) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < v.gpu_count(); ++i) rows.push_back(matrix_row(v, kind, i));
    matrix[kind] = std::move(rows);
  }
  doc["pair_matrix"] = std::move(matrix);
  return doc;
}

void write_topology_json(std::ostream& out, const TopologyView& v) {
  // The head as nlohmann writes it (keys sorted), then the pairs one at a time: memory stays O(GPUs)
  // whatever the number of pairs. The head's closing brace is cut and written after the pairs.
  std::string head = topology_head(v).dump(2);
  head.resize(head.size() - 2);  // "\n}"
  out << head << ",\n  \"pairs\": [";
  bool first = true;
  for_listed_pairs(v, [&](const nlohmann::json& p) {
    out << (first ? "\n    " : ",\n    ") << p.dump();
    first = false;
  });
  out << (first ? "],\n" : "\n  ],\n") << "  \"pair_matrix\": {";
  for (const char* kind : kMatrixKinds) {
    out << (kind == kMatrixKinds[0] ? "\n" : ",\n") << "    \"" << kind << "\": [";
    for (std::size_t i = 0; i < v.gpu_count(); ++i) {
      // Labels and digits only: nothing to escape.
      out << (i ? ",\n      \"" : "\n      \"") << matrix_row(v, kind, i) << '"';
    }
    out << (v.gpu_count() ? "\n    ]" : "]");
  }
  out << "\n  }\n}\n";
  out.flush();
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
