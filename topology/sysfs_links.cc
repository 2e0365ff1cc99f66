// SPDX-License-Identifier: Apache-2.0
// sysfs PCIe link state.
#include "topology/sysfs_links.h"

#include <fstream>

#include "topology/link_bandwidth.h"

namespace pipebench {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

int read_width(const std::string& path) {
  const std::string s = read_line(path);
  return s.empty() ? 0 : std::atoi(s.c_str());
}

}  // namespace

int read_sysfs_links(Topology& t, const std::string& root) {
  int read = 0;
  for (auto& n : t.nodes) {
    if (n.bus_id.empty()) continue;
    const std::string dir = root + "/" + n.bus_id + "/";
    const int gen = pcie_gen_from_speed(read_line(dir + "current_link_speed"));
    const int width = read_width(dir + "current_link_width");
    if (gen == 0 && width == 0) continue;
    n.link_gen = gen;
    n.link_width = width;
    n.link_gen_max = pcie_gen_from_speed(read_line(dir + "max_link_speed"));
    n.link_width_max = read_width(dir + "max_link_width");
    if (gen > 0 && width > 0) n.link_gbps = pcie_gbps(gen, width);
    ++read;
  }
  return read;
}

}  // namespace pipebench
