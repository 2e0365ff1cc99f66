// SPDX-License-Identifier: Apache-2.0
// Topology sanity checks.
#include "topology/topology_checks.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

namespace pipebench {
namespace {

std::string gbps_text(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", gbps);  // never 309 digits
  return buf;
}

// Resets a link that no PCIe link can be; says so.
void check_link(TopoNode& n, std::vector<std::string>& out) {
  const std::string where = "the PCIe link above " + (n.bus_id.empty() ? n.label : n.bus_id);
  if (!std::isfinite(n.link_gbps) || n.link_gbps < 0 || n.link_gbps > kMaxPcieLinkGbps) {
    out.push_back(where + " reads " + gbps_text(n.link_gbps) + " GB/s, not a PCIe link speed (at most " +
                  gbps_text(kMaxPcieLinkGbps) + "): ignored, the link is taken as unknown");
    n.link_gbps = 0;
    n.link_gen = n.link_gen_max = 0;
  }
  for (int* width : {&n.link_width, &n.link_width_max}) {
    if (*width != 0 && !is_pcie_width(*width)) {
      out.push_back(where + " reads width x" + std::to_string(*width) +
                    ", not a PCIe width: ignored, the link is taken as unknown");
      *width = 0;
      n.link_gbps = 0;
    }
  }
}

}  // namespace

bool is_pcie_width(long long lanes) {
  return lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8 || lanes == 12 || lanes == 16 || lanes == 32;
}

bool is_normalized_bus_id(std::string_view id) {
  if (id.size() != 12 || id[4] != ':' || id[7] != ':' || id[10] != '.') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (!std::isxdigit(static_cast<unsigned char>(id[i]))) return false;
  }
  return true;
}

std::vector<std::string> check_topology(Topology& t) {
  std::vector<std::string> out = t.problems;
  std::map<std::string, std::string> owner;  // bus id -> "GPU 0" / "NIC mlx5_0"
  const auto claim = [&](const std::string& who, const std::string& bus_id) {
    if (bus_id.empty()) return;
    auto [it, fresh] = owner.try_emplace(bus_id, who);
    if (!fresh) {
      out.push_back(who + " and " + it->second + " share the PCI bus id " + bus_id +
                    ": the source is inconsistent, their pair classes may be wrong");
    }
  };
  for (const Gpu& g : t.gpus) {
    const std::string who = "GPU " + std::to_string(g.index);
    if (g.bus_id.empty() || g.bus_id == "0000:00:00.0") {
      out.push_back(who + " has no PCI bus id (read as " + (g.bus_id.empty() ? std::string("empty") : g.bus_id) +
                    "): it cannot be matched to CUDA, NVML or sysfs");
    } else if (!is_normalized_bus_id(g.bus_id)) {
      out.push_back(who + " has a malformed PCI bus id '" + g.bus_id +
                    "': kept, but it cannot be matched to CUDA, NVML or sysfs");
    }
    claim(who, g.bus_id);
  }
  for (const Nic& n : t.nics) claim("NIC " + n.name, n.bus_id);
  for (TopoNode& n : t.nodes) check_link(n, out);
  return out;
}

}  // namespace pipebench
