// SPDX-License-Identifier: Apache-2.0
// Topology from NCCL's topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE format, topology.md §2.4).
#pragma once

#include <string>

#include "topology/topology.h"

namespace pipebench {

// Throws UsageError naming `flag` and the file for a missing, empty, truncated or non-NCCL file.
// Unknown tags are skipped with a note in Topology::notes.
[[nodiscard]] Topology parse_nccl_xml(const std::string& flag, const std::string& path);

[[nodiscard]] bool built_with_xml_parser();

}  // namespace pipebench
