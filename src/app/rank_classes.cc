// SPDX-License-Identifier: Apache-2.0
// Rank -> GPU -> pair class.
#include "app/rank_classes.h"

#include <map>
#include <optional>

#include "topology/link_class.h"

namespace pipebench {
namespace {

Placement place(const nlohmann::json& devices, const TopologyView* view, const std::string& host) {
  std::vector<DevicePlace> places;
  for (const auto& d : devices) {
    places.push_back({d.value("rank", -1), d.value("host", ""), normalize_bus_id(d.value("bus_id", ""))});
  }
  std::map<std::string, int> gpu_of_bus;
  if (view) {
    for (const auto& g : view->topology.gpus) gpu_of_bus[g.bus_id] = g.index;
  }
  return Placement(places, host, gpu_of_bus);
}

}  // namespace

RankClasses::RankClasses(const nlohmann::json& devices, const TopologyView* view, const std::string& host)
    : placement_(place(devices, view, host)), view_(view) {}

std::optional<PairInfo> RankClasses::pair(int a, int b) const {
  const std::optional<int> ga = placement_.gpu_of(a), gb = placement_.gpu_of(b);
  if (!view_ || !ga || !gb) return std::nullopt;
  return view_->gpu_pair(static_cast<std::size_t>(*ga), static_cast<std::size_t>(*gb), false);
}

std::string RankClasses::class_of(const std::vector<int>& ranks) const {
  const GpuPairClassFn gpu_pair = [this](int ga, int gb) -> std::optional<LinkClass> {
    const PairInfo p = view_->gpu_pair(static_cast<std::size_t>(ga), static_cast<std::size_t>(gb), false);
    return LinkClass{p.cls, p.nvlinks, false};
  };
  const std::optional<LinkClass> worst =
      worst_link_class(ranks, [&](int a, int b) { return placement_.pair_class(a, b, gpu_pair); });
  return worst ? worst->label() : "";
}

}  // namespace pipebench
