// SPDX-License-Identifier: Apache-2.0
// Ranks placed on hosts and GPUs.
#include "topology/placement.h"

namespace pipebench {

Placement::Placement(const std::vector<DevicePlace>& devices, const std::string& host,
                     const std::map<std::string, int>& gpu_of_bus) {
  for (const auto& d : devices) {
    if (d.rank < 0) continue;
    Place p;
    p.host = d.host;
    const auto it = d.bus_id.empty() ? gpu_of_bus.end() : gpu_of_bus.find(d.bus_id);
    if ((d.host.empty() || d.host == host) && it != gpu_of_bus.end()) p.gpu = it->second;
    place_[d.rank] = p;
  }
}

Placement Placement::rank_per_gpu(const std::vector<int>& gpus) {
  Placement pl;
  for (const int g : gpus) pl.place_[g] = Place{"", g};
  return pl;
}

std::map<int, int> Placement::gpu_of_rank() const {
  std::map<int, int> out;
  for (const auto& [rank, p] : place_) {
    if (p.gpu >= 0) out[rank] = p.gpu;
  }
  return out;
}

std::optional<int> Placement::gpu_of(int rank) const {
  const auto it = place_.find(rank);
  if (it == place_.end() || it->second.gpu < 0) return std::nullopt;
  return it->second.gpu;
}

bool Placement::across_hosts(int a, int b) const {
  const auto ia = place_.find(a), ib = place_.find(b);
  if (ia == place_.end() || ib == place_.end()) return false;
  const std::string &ha = ia->second.host, &hb = ib->second.host;
  return !ha.empty() && !hb.empty() && ha != hb;
}

std::optional<LinkClass> Placement::pair_class(int a, int b, const GpuPairClassFn& gpu_pair) const {
  if (across_hosts(a, b)) return LinkClass{PathClass::kSys, 0, true};
  const std::optional<int> ga = gpu_of(a), gb = gpu_of(b);
  if (!ga || !gb) return std::nullopt;
  if (a == b) return LinkClass{};
  return gpu_pair(*ga, *gb);
}

}  // namespace pipebench
