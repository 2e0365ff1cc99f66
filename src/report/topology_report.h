// SPDX-License-Identifier: Apache-2.0
// Topology reports: the matrix in nvidia-smi topo -m's layout with its legend, then affinity, link
// state and warnings; JSON ("schema": "pipebench.topology/1"); and the PCIe tree as graphviz DOT.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>

#include "topology/discovery.h"

namespace pipebench {

// Above this many GPUs the JSON "pairs" list (a record with the links crossed per ordered pair, O(GPUs^2)
// records) is left empty: "pair_matrix" (one label per pair) and each GPU's "pcie_chain" hold the same
// classes and let a reader rebuild the links. 64 GPUs list 4032 GPU pairs (about 2.5 MB).
inline constexpr std::size_t kMaxListedPairGpus = 64;

// Streams: the matrix row by row, the pairs one at a time.
void print_topology_text(std::ostream& out, const TopologyView& v);
// The same document both ways: streamed (topo --format json) or as one tree (the results file).
void write_topology_json(std::ostream& out, const TopologyView& v);
[[nodiscard]] nlohmann::json topology_to_json(const TopologyView& v);
void print_topology_dot(std::ostream& out, const TopologyView& v);

}  // namespace pipebench
