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

std::string class_label(PathClass c, int nvlinks) {
  switch (c) {
    case PathClass::kSelf:
      return "X";
    case PathClass::kNvLink:
      return "NV" + std::to_string(nvlinks);
    case PathClass::kPix:
      return "PIX";
    case PathClass::kPxb:
      return "PXB";
    case PathClass::kPhb:
      return "PHB";
    case PathClass::kNode:
      return "NODE";
    case PathClass::kSys:
      return "SYS";
  }
  return "?";
}

std::string_view nccl_path_name(PathClass c) {
  switch (c) {
    case PathClass::kSelf:
      return "LOC";
    case PathClass::kNvLink:
      return "NVL";
    case PathClass::kPix:
      return "PIX";
    case PathClass::kPxb:
      return "PXB";
    case PathClass::kPhb:
    case PathClass::kNode:
      return "PHB";
    case PathClass::kSys:
      return "SYS";
  }
  return "?";
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
