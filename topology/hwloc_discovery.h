// SPDX-License-Identifier: Apache-2.0
// Topology from hwloc 2.x: the live machine, or an hwloc XML export (lstopo --of xml).
#pragma once

#include <string>

#include "topology/topology.h"

namespace pipebench {

// xml_path empty: the live machine. Throws UsageError naming `flag` and the file for a missing, empty,
// truncated or non-hwloc file, or an export without PCI objects (made with the I/O filter off).
[[nodiscard]] Topology discover_with_hwloc(const std::string& flag, const std::string& xml_path);

// Writes the live machine as hwloc XML (with I/O devices), to capture a field machine for tests.
void export_hwloc_xml(const std::string& path);

[[nodiscard]] bool built_with_hwloc();

}  // namespace pipebench
