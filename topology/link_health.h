// SPDX-License-Identifier: Apache-2.0
// Link health and placement warnings: a link trained below its maximum, no P2P between GPUs a pipeline
// would pair, GPUs of one job on different NUMA nodes, a NIC far from its GPU.
#pragma once

#include <string>
#include <vector>

#include "topology/discovery.h"

namespace pipebench {

// under_load: the link state was sampled while a copy ran (an idle GPU drops to Gen1 on purpose,
// topology.md §0 item 6), so a low reading is real rather than power saving.
// Reads v.topology, its tree and classes (not v.warnings).
[[nodiscard]] std::vector<std::string> link_warnings(const TopologyView& v);

}  // namespace pipebench
