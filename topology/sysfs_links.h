// SPDX-License-Identifier: Apache-2.0
// Current and maximum PCIe generation and width of every PCI object of a live topology, from sysfs
// (current_link_speed/width, max_link_speed/width): hwloc's single GB/s figure cannot tell Gen1 x16
// from Gen2 x8 (topology.md §0 item 5).
#pragma once

#include <string>

#include "topology/topology.h"

namespace pipebench {

// Reads <root>/<bus id>/ for every node with a bus id; returns how many nodes it could read.
int read_sysfs_links(Topology& t, const std::string& root = "/sys/bus/pci/devices");

}  // namespace pipebench
