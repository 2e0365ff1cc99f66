// SPDX-License-Identifier: Apache-2.0
#include "io/input_views.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "topology/topology.h"

namespace pipebench {

std::vector<std::string> hosts_of(const ResultSet& rs) {
  std::vector<std::string> hosts;
  auto add = [&](const std::string& h) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  };
  for (const auto& h : rs.system.hosts) add(h);
  for (const auto& d : rs.system.devices) {
    if (!d.host.empty() && d.rank >= 0 && d.rank <= kMaxRecordRanks) add(d.host);
  }
  return hosts;
}

std::string host_of(const InputFile<ResultSet>& in) {
  const auto hosts = hosts_of(in.doc);
  const std::string host = !hosts.empty()           ? hosts.front()
                           : in.doc.system.topology ? in.doc.system.topology->host
                                                    : std::filesystem::path(in.path).parent_path().filename().string();
  return host.empty() ? in.path : host;
}

const DevicePlace* device_of_rank(const ResultSet& rs, int rank) {
  const auto& devices = rs.system.devices;
  const auto it = std::find_if(devices.rbegin(), devices.rend(), [&](const DevicePlace& d) { return d.rank == rank; });
  return it == devices.rend() || rank < 0 || rank > kMaxRecordRanks ? nullptr : &*it;
}

std::vector<int> link_state_gpus(const ResultSet& rs) {
  std::set<int> gpus;
  for (const auto* list : {&rs.system.link_start, &rs.system.link_end, &rs.link_during_run}) {
    for (const auto& e : *list) gpus.insert(e.gpu);
  }
  return {gpus.begin(), gpus.end()};
}

LinkStateEntry link_entry(const std::vector<LinkStateEntry>& list, int gpu) {
  const auto it = std::find_if(list.rbegin(), list.rend(), [&](const LinkStateEntry& e) { return e.gpu == gpu; });
  return it == list.rend() ? LinkStateEntry{} : *it;
}

LinkStateEntry link_over_run(const ResultSet& rs, int gpu) {
  const LinkStateEntry start = link_entry(rs.system.link_start, gpu), end = link_entry(rs.system.link_end, gpu);
  const LinkStateEntry seen = link_entry(rs.link_during_run, gpu);
  LinkStateEntry out{gpu,
                     "",
                     seen.pcie_gen > 0 ? seen.pcie_gen : std::max(start.pcie_gen, end.pcie_gen),
                     seen.pcie_width > 0 ? seen.pcie_width : std::max(start.pcie_width, end.pcie_width),
                     0,
                     0,
                     end.nvlinks_up,
                     end.nvlinks_down};
  for (const auto* list : {&rs.system.link_start, &rs.system.link_end, &rs.link_during_run}) {
    for (const auto& e : *list) {
      if (e.gpu != gpu) continue;
      if (out.bus_id.empty()) out.bus_id = e.bus_id;
      out.pcie_gen_max = std::max(out.pcie_gen_max, e.pcie_gen_max);
      out.pcie_width_max = std::max(out.pcie_width_max, e.pcie_width_max);
    }
  }
  return out;
}

namespace {
bool shown(const TopologyGpu& g) { return g.index >= 0 && g.index <= 4096; }
}  // namespace

std::size_t gpu_count(const TopologyFile& t) {
  std::size_t n = 0;
  for (const auto& g : t.gpus) n = shown(g) ? std::max(n, static_cast<std::size_t>(g.index) + 1) : n;
  return n;
}

std::optional<int> gpu_of_bus(const TopologyFile& t, const std::string& bus_id) {
  std::optional<int> out;
  for (const auto& g : t.gpus) {
    if (shown(g) && normalize_bus_id(g.bus_id) == bus_id && (!out || g.index < *out)) out = g.index;
  }
  return out;
}

std::vector<LinkStateEntry> links_at_discovery(const TopologyFile& t) {
  std::vector<LinkStateEntry> out;
  for (const auto& g : t.gpus) {
    if (shown(g) && (g.pcie_gen > 0 || g.pcie_gen_max > 0))
      out.push_back({g.index, g.bus_id, g.pcie_gen, g.pcie_width, g.pcie_gen_max, g.pcie_width_max});
  }
  return out;
}

}  // namespace pipebench
