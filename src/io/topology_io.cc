// SPDX-License-Identifier: Apache-2.0
// Topology JSON, read back.
#include "io/topology_io.h"

#include <cmath>

#include "core/error.h"
#include "io/json_fields.h"
#include "report/topology_report.h"
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

TopologyGpu read_gpu(const JsonFields& f, const json& g, const std::string& path) {
  TopologyGpu out;
  out.index = f.get_int(g, path, "index");
  out.bus_id = normalize_bus_id(f.get_string(g, path, "bus_id"));
  if (g.contains("model") && !g["model"].is_null()) out.model = f.get_string(g, path, "model");
  out.pcie_gen = optional_link(f, g, path, "pcie_gen");
  out.pcie_width = optional_link(f, g, path, "pcie_width");
  out.pcie_gen_max = optional_link(f, g, path, "pcie_gen_max");
  out.pcie_width_max = optional_link(f, g, path, "pcie_width_max");
  return out;
}

}  // namespace

TopologyFile topology_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kTopologySchema, "pipebench topology");
  TopologyFile t;
  t.host = f.get_string(j, "", "host");
  const json& gpus = f.array(j, "", "gpus");
  if (gpus.size() > kMaxTopologyGpus) f.fail("gpus", "has more than the limit of " + std::to_string(kMaxTopologyGpus));
  for (std::size_t i = 0; i < gpus.size(); ++i) t.gpus.push_back(read_gpu(f, gpus[i], JsonFields::item("gpus", i)));
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
    if (pairs[i].contains("path_min_gbps") && !pairs[i]["path_min_gbps"].is_null()) {
      p.path_min_gbps = f.get_double(pairs[i], path, "path_min_gbps");
      if (!std::isfinite(p.path_min_gbps) || p.path_min_gbps < 0) {
        f.fail(path + ".path_min_gbps", "is not a bandwidth >= 0");
      }
    }
    t.gpu_pairs.push_back(std::move(p));
  }
  if (j.contains("warnings")) t.warnings = f.get_strings(j, "", "warnings");
  if (j.contains("command_line")) t.command_line = f.get_string(j, "", "command_line");
  return t;
}

RankTopology rank_topology(const TopologyFile& t) {
  RankTopology rt;
  for (const auto& g : t.gpus) rt.gpu_of_rank[g.index] = g.index;
  for (const auto& p : t.gpu_pairs) {
    rt.gpu_class[{p.a, p.b}] = p.cls;
    rt.gpu_path[{p.a, p.b}] = p.path;
  }
  return rt;
}

}  // namespace pipebench
