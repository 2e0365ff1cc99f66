// SPDX-License-Identifier: Apache-2.0
// Class names and bus-id normalisation.
#include "topology/topology.h"

#include <cctype>
#include <cstdio>

#include "core/error.h"

namespace pipebench {

void check_topology_size(const std::string& where, const Topology& t) {
  if (t.gpus.size() > kMaxTopologyGpus) {
    throw UsageError(where + ": " + std::to_string(t.gpus.size()) + " GPUs, above the limit of " +
                     std::to_string(kMaxTopologyGpus) + " in one topology");
  }
  if (t.nics.size() > kMaxTopologyNics) {
    throw UsageError(where + ": " + std::to_string(t.nics.size()) + " NICs, above the limit of " +
                     std::to_string(kMaxTopologyNics) + " in one topology");
  }
}

// Both in PathClass's order.
std::string class_label(PathClass c, int nvlinks) {
  if (c == PathClass::kNvLink) return "NV" + std::to_string(nvlinks);
  static constexpr std::string_view kLabels[] = {"X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
  return std::string(kLabels[static_cast<int>(c)]);
}

std::string_view nccl_path_name(PathClass c) {
  static constexpr std::string_view kNames[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "PHB", "SYS"};
  return kNames[static_cast<int>(c)];
}

std::string normalize_bus_id(std::string_view in) {
  std::string s;
  for (char c : in) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) == 4) {
  } else if (std::sscanf(s.c_str(), "%x:%x.%x", &bus, &dev, &fn) == 3) {
    domain = 0;
  } else {
    return s;
  }
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain & 0xffffu, bus & 0xffu, dev & 0xffu, fn & 0xfu);
  return out;
}

}  // namespace pipebench
