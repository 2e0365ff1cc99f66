// SPDX-License-Identifier: Apache-2.0
// Topology JSON, read back.
#include "io/topology_io.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/command_line.h"
#include "core/error.h"
#include "io/json_fields.h"
#include "topology/discovery.h"
#include "topology/topology.h"

namespace pipebench {

using nlohmann::json;

namespace {

int optional_link(const JsonFields& f, const json& g, const std::string& path, const char* key) {
  if (!g.contains(key) || g[key].is_null()) return 0;
  const int v = f.get_int(g, path, key);
  if (v < 0 || v > 64) f.fail(JsonFields::join(path, key), "is not a PCIe generation or width");
  return v;
}

// A bandwidth that may be null or absent (0: unknown), finite and >= 0 where given.
double optional_gbps(const JsonFields& f, const json& j, const std::string& path, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return 0;
  const double v = f.get_double(j, path, key);
  if (!std::isfinite(v) || v < 0) f.fail(JsonFields::join(path, key), "is not a bandwidth >= 0");
  return v;
}

// A GPU's "pcie_chain" (newer files): tree node ids, link names and speeds from the GPU to the root.
std::vector<ChainLink> read_chain(const JsonFields& f, const json& g, const std::string& path) {
  if (!g.contains("pcie_chain")) return {};
  return f.list(g, path, "pcie_chain", [](const JsonFields& f, const json& c, const std::string& at) {
    return ChainLink{f.get_int(c, at, "node"), f.get_string(c, at, "link"), optional_gbps(f, c, at, "gbps")};
  });
}

TopologyGpu read_gpu(const JsonFields& f, const json& g, const std::string& path) {
  TopologyGpu out;
  out.index = f.get_int(g, path, "index");
  out.bus_id = normalize_bus_id(f.get_string(g, path, "bus_id"));
  f.get_if(g, path, "model", out.model, true);
  out.pcie_gen = optional_link(f, g, path, "pcie_gen");
  out.pcie_width = optional_link(f, g, path, "pcie_width");
  out.pcie_gen_max = optional_link(f, g, path, "pcie_gen_max");
  out.pcie_width_max = optional_link(f, g, path, "pcie_width_max");
  out.pcie_chain = read_chain(f, g, path);
  return out;
}

// The older form: one record per ordered pair with its links.
void read_pair_list(const JsonFields& f, const json& j, TopologyFile& t) {
  const json& pairs = f.array(j, "", "pairs");
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string path = JsonFields::item("pairs", i);
    if (f.get_string(pairs[i], path, "kind") != "gpu-gpu") continue;
    TopologyGpuPair p;
    p.a = f.get_int(pairs[i], path, "a");
    p.b = f.get_int(pairs[i], path, "b");
    const std::string label = f.get_string(pairs[i], path, "class");
    const auto cls = parse_link_class(label);
    if (!cls) f.fail(path + ".class", "is not a link class (\"" + label + "\")");
    p.cls = *cls;
    p.path = f.get_strings(pairs[i], path, "path");
    p.path_min_gbps = optional_gbps(f, pairs[i], path, "path_min_gbps");
    t.gpu_pairs.push_back(std::move(p));
  }
}

// The links from GPU a to GPU b below their common tree node, as the writer names them, and the
// narrowest; from the two GPUs' chains.
void chain_path(const TopologyGpu& a, const TopologyGpu& b, TopologyGpuPair& p) {
  const auto in_b = [&](int node) {
    return std::any_of(b.pcie_chain.begin(), b.pcie_chain.end(), [&](const ChainLink& c) { return c.node == node; });
  };
  std::size_t top_a = 0;
  while (top_a < a.pcie_chain.size() && !in_b(a.pcie_chain[top_a].node)) ++top_a;
  const int common = top_a < a.pcie_chain.size() ? a.pcie_chain[top_a].node : -1;
  for (const TopologyGpu* g : {&a, &b}) {
    const char* dir = g == &a ? "up:" : "down:";
    for (const ChainLink& c : g->pcie_chain) {
      if (c.node == common) break;
      p.path.push_back(dir + c.link);
      if (c.gbps > 0 && (p.path_min_gbps == 0 || c.gbps < p.path_min_gbps)) p.path_min_gbps = c.gbps;
    }
  }
}

// One row of "pair_matrix"."gpu_gpu": the labels of (a, 0..n-1), space-separated.
void read_matrix_row(const JsonFields& f, const json& row, std::size_t a, double per_link_gbps, TopologyFile& t) {
  const std::string path = JsonFields::item("pair_matrix.gpu_gpu", a);
  const std::size_t n = t.gpus.size();
  if (!row.is_string()) f.fail(path, "is not a string of labels");
  std::istringstream labels(row.get<std::string>());
  std::string label;
  std::size_t b = 0;
  for (; labels >> label; ++b) {
    if (b >= n) f.fail(path, "has more than " + std::to_string(n) + " labels");
    const auto cls = parse_link_class(label);
    if (!cls) f.fail(path, "holds \"" + label.substr(0, 16) + "\", not a link class");
    if (a == b) continue;
    TopologyGpuPair p;
    p.a = t.gpus[a].index;
    p.b = t.gpus[b].index;
    p.cls = *cls;
    if (cls->cls == PathClass::kNvLink) {
      p.path = {"nvlink:" + std::to_string(p.a) + "->" + std::to_string(p.b)};
      p.path_min_gbps = cls->nvlinks * per_link_gbps;
    } else {
      chain_path(t.gpus[a], t.gpus[b], p);
    }
    t.gpu_pairs.push_back(std::move(p));
  }
  if (b != n) f.fail(path, "has " + std::to_string(b) + " labels for " + std::to_string(n) + " GPUs");
}

// The compact form: "pair_matrix"."gpu_gpu", one row of labels per GPU; the links of a PCIe pair come
// from the GPUs' "pcie_chain", of an NVLink pair from its link count.
void read_pair_matrix(const JsonFields& f, const json& j, TopologyFile& t) {
  const json& matrix = f.object(j, "", "pair_matrix");
  const json& rows = f.array(matrix, "pair_matrix", "gpu_gpu");
  const std::size_t n = t.gpus.size();
  if (rows.size() != n) {
    f.fail("pair_matrix.gpu_gpu", "has " + std::to_string(rows.size()) + " rows for " + std::to_string(n) + " GPUs");
  }
  const double per_link_gbps = j.contains("nvlink_gbps_per_link") ? f.get_double(j, "", "nvlink_gbps_per_link") : 0;
  if (!std::isfinite(per_link_gbps) || per_link_gbps < 0) f.fail("nvlink_gbps_per_link", "is not a bandwidth >= 0");
  t.gpu_pairs.reserve(n * (n ? n - 1 : 0));
  for (std::size_t a = 0; a < n; ++a) read_matrix_row(f, rows[a], a, per_link_gbps, t);
}

// The placement with the file's GPU pairs as its links (a pair listed twice: the later one).
Placement with_links(const TopologyFile& t, Placement p) {
  std::map<std::pair<int, int>, const TopologyGpuPair*> pairs;
  for (const auto& q : t.gpu_pairs) pairs[{q.a, q.b}] = &q;
  p.link_gpus([&pairs](int a, int b) -> std::optional<GpuLink> {
    const auto it = pairs.find({a, b});
    if (it == pairs.end()) return std::nullopt;
    return GpuLink{it->second->cls, it->second->path, it->second->path_min_gbps};
  });
  return p;
}

}  // namespace

TopologyFile topology_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kTopologySchema, "pipebench topology");
  TopologyFile t;
  t.host = f.get_string(j, "", "host");
  const json& gpus = f.array(j, "", "gpus");
  if (gpus.size() > kMaxTopologyFileGpus) {
    f.fail("gpus", "has " + std::to_string(gpus.size()) + " GPUs, above the limit of " +
                       std::to_string(kMaxTopologyFileGpus) + " for a topology read back");
  }
  t.gpus = f.list(j, "", "gpus", read_gpu);
  if (j.contains("pair_matrix")) {
    read_pair_matrix(f, j, t);
  } else {
    read_pair_list(f, j, t);
  }
  f.get_if(j, "", "warnings", t.warnings);
  f.get_if(j, "", "command_line", t.command_line);
  return t;
}

std::vector<ChainLink> pcie_chain(const Topology& t, const Gpu& g) {
  std::vector<ChainLink> chain;
  // The size bound stops a malformed parent cycle.
  for (int x = g.node; x >= 0 && chain.size() <= t.nodes.size(); x = t.nodes[static_cast<std::size_t>(x)].parent) {
    const TopoNode& up = t.nodes[static_cast<std::size_t>(x)];
    chain.push_back({x, "pcie:" + (up.bus_id.empty() ? up.label : up.bus_id), up.link_gbps > 0 ? up.link_gbps : 0.0});
  }
  return chain;
}

TopologyFile topology_file(const TopologyView& v) {
  const Topology& t = v.topology;
  TopologyFile f;
  f.host = t.host;
  f.warnings = v.warnings;
  f.command_line = this_command_line();                    // as the file's provenance has it
  const auto known = [](int x) { return x > 0 ? x : 0; };  // the file's null: unknown
  for (const Gpu& g : t.gpus) {
    const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    TopologyGpu out;
    out.index = g.index;
    out.bus_id = normalize_bus_id(g.bus_id);
    out.model = g.model;
    out.pcie_gen = known(n.link_gen);
    out.pcie_width = known(n.link_width);
    out.pcie_gen_max = known(n.link_gen_max);
    out.pcie_width_max = known(n.link_width_max);
    out.pcie_chain = pcie_chain(t, g);
    f.gpus.push_back(std::move(out));
  }
  for (std::size_t a = 0; a < f.gpus.size(); ++a) {
    for (std::size_t b = 0; b < f.gpus.size(); ++b) {
      if (a == b) continue;
      PairInfo p = v.gpu_pair(a, b, true);
      f.gpu_pairs.push_back(
          {f.gpus[a].index, f.gpus[b].index, LinkClass{p.cls, p.nvlinks, false}, std::move(p.path), p.path_min_gbps});
    }
  }
  return f;
}

Placement place_ranks(const TopologyFile& t, const std::vector<DevicePlace>& devices) {
  std::map<std::string, int> gpu_of_bus;
  for (const auto& g : t.gpus) gpu_of_bus[g.bus_id] = g.index;
  return with_links(t, Placement(devices, t.host, gpu_of_bus));
}

Placement place_ranks(const TopologyFile& t) {
  std::vector<int> gpus;
  for (const auto& g : t.gpus) gpus.push_back(g.index);
  return with_links(t, Placement::rank_per_gpu(gpus));
}

}  // namespace pipebench
