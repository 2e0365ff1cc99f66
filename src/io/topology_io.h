// SPDX-License-Identifier: Apache-2.0
// The topology file ("schema": "pipebench.topology/1", `pipebench topo --format json`, and the
// "topology" block of a results file's "system"), read back as far as predict and the cost models use
// it: the GPUs and the class and path of every GPU pair.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/cost_model.h"
#include "topology/link_class.h"

namespace pipebench {

struct TopologyGpu {
  int index = 0;
  std::string bus_id;  // normalised
};

struct TopologyGpuPair {
  int a = 0, b = 0;  // GPU indices
  LinkClass cls;
  std::vector<std::string> path;  // the links it crosses
};

struct TopologyFile {
  std::string host;
  std::vector<TopologyGpu> gpus;
  std::vector<TopologyGpuPair> gpu_pairs;  // "kind": "gpu-gpu" pairs; GPU-NIC pairs are not read
};

// Throws UsageError naming `where` and the field for another schema, a missing or mistyped field.
[[nodiscard]] TopologyFile topology_from_json(const nlohmann::json& j, const std::string& where);

// The placement of a bare topology file: rank i is GPU i.
[[nodiscard]] RankTopology rank_topology(const TopologyFile& t);

}  // namespace pipebench
