// SPDX-License-Identifier: Apache-2.0
// Topology JSON, read back.
#include "io/topology_io.h"

#include "core/error.h"
#include "io/json_fields.h"
#include "report/topology_report.h"
#include "topology/topology.h"

namespace pipebench {

using nlohmann::json;

TopologyFile topology_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kTopologySchema, "pipebench topology");
  TopologyFile t;
  t.host = f.get_string(j, "", "host");
  const json& gpus = f.array(j, "", "gpus");
  if (gpus.size() > kMaxTopologyGpus) f.fail("gpus", "has more than the limit of " + std::to_string(kMaxTopologyGpus));
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::string path = JsonFields::item("gpus", i);
    t.gpus.push_back({f.get_int(gpus[i], path, "index"), normalize_bus_id(f.get_string(gpus[i], path, "bus_id"))});
  }
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
    t.gpu_pairs.push_back(std::move(p));
  }
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
