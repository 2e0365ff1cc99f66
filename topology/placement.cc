// SPDX-License-Identifier: Apache-2.0
// Ranks placed on hosts and GPUs.
#include "topology/placement.h"

#include <set>

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

void Placement::link_gpus(const GpuLinkFn& link) {
  std::set<int> gpus;
  for (const auto& [rank, p] : place_) {
    if (p.gpu >= 0) gpus.insert(p.gpu);
  }
  links_.clear();
  for (const int a : gpus) {
    for (const int b : gpus) {
      if (std::optional<GpuLink> l = link(a, b)) links_.emplace(std::make_pair(a, b), std::move(*l));
    }
  }
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

const GpuLink* Placement::link(int a, int b) const {
  const std::optional<int> ga = gpu_of(a), gb = gpu_of(b);
  if (!ga || !gb) return nullptr;
  const auto it = links_.find({*ga, *gb});
  return it == links_.end() ? nullptr : &it->second;
}

bool Placement::knows_a_pair() const {
  const std::map<int, int> gpus = gpu_of_rank();
  for (const auto& [ra, ga] : gpus) {
    for (const auto& [rb, gb] : gpus) {
      if (ra != rb && links_.count({ga, gb})) return true;
    }
  }
  return false;
}

std::optional<LinkClass> Placement::pair_class(int a, int b) const {
  if (across_hosts(a, b)) return LinkClass{PathClass::kSys, 0, true};
  if (!gpu_of(a) || !gpu_of(b)) return std::nullopt;
  if (a == b) return LinkClass{};
  const GpuLink* l = link(a, b);
  if (!l) return std::nullopt;
  return l->cls;
}

std::optional<LinkClass> Placement::class_of(const std::vector<int>& ranks) const {
  return worst_link_class(ranks, [this](int a, int b) { return pair_class(a, b); });
}

}  // namespace pipebench
