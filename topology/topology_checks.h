// SPDX-License-Identifier: Apache-2.0
// Problems of a topology from any source (hwloc live or XML, NCCL XML) that would otherwise pass in
// silence: a GPU without or with a malformed PCI bus id, two devices with one bus id, a PCIe link speed
// or width that is not a number or beyond any PCIe link. Each is one warning line; an absurd link value
// is set to unknown (0) so that no bandwidth is computed from it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

// PCIe 7.0 (PCI-SIG, 2025): 128 GT/s per lane; x32: 128 x 32 / 8 = 512 GB/s per direction before
// encoding overhead. Anything faster is not a PCIe link.
inline constexpr double kMaxPcieGts = 128;
inline constexpr double kMaxPcieLinkGbps = 512;

// 1, 2, 4, 8, 12, 16 or 32 lanes (the widths the PCIe base specification defines).
[[nodiscard]] bool is_pcie_width(long long lanes);

// "dddd:bb:dd.f" in lower-case hex, as normalize_bus_id writes a well-formed id.
[[nodiscard]] bool is_normalized_bus_id(std::string_view bus_id);

// t.problems (what the reader found in its file) followed by what is found here; absurd link values
// in t.nodes are reset to unknown.
[[nodiscard]] std::vector<std::string> check_topology(Topology& t);

}  // namespace pipebench
