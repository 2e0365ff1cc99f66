// SPDX-License-Identifier: Apache-2.0
// Topology reports: the matrix in nvidia-smi topo -m's layout with its legend, then affinity, link
// state and warnings; JSON ("schema": "pipebench.topology/1"); and the PCIe tree as graphviz DOT.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "topology/discovery.h"

namespace pipebench {

inline constexpr const char* kTopologySchema = "pipebench.topology/1";

void print_topology_text(std::ostream& out, const TopologyView& v);
[[nodiscard]] nlohmann::json topology_to_json(const TopologyView& v);
void print_topology_dot(std::ostream& out, const TopologyView& v);

}  // namespace pipebench
