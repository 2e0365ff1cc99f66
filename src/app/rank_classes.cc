// SPDX-License-Identifier: Apache-2.0
// Rank -> GPU -> pair class.
#include "app/rank_classes.h"

#include <optional>

#include "topology/link_class.h"

namespace pipebench {

RankClasses::RankClasses(const nlohmann::json& devices, const TopologyView* view, std::string host) : view_(view) {
  for (const auto& d : devices) {
    const int rank = d.value("rank", -1);
    if (rank < 0) continue;
    if (place_.size() <= static_cast<std::size_t>(rank)) place_.resize(static_cast<std::size_t>(rank) + 1);
    RankPlace p;
    p.host = d.value("host", "");
    const std::string bus = normalize_bus_id(d.value("bus_id", ""));
    if (view_ && p.host == host && !bus.empty()) {
      for (const auto& g : view_->topology.gpus) {
        if (g.bus_id == bus) p.gpu = g.index;
      }
    }
    place_[static_cast<std::size_t>(rank)] = p;
  }
}

std::optional<PairInfo> RankClasses::pair(int a, int b) const {
  if (!view_ || a < 0 || b < 0 || static_cast<std::size_t>(a) >= place_.size() ||
      static_cast<std::size_t>(b) >= place_.size()) {
    return std::nullopt;
  }
  const int ga = place_[static_cast<std::size_t>(a)].gpu, gb = place_[static_cast<std::size_t>(b)].gpu;
  if (ga < 0 || gb < 0) return std::nullopt;
  return view_->gpu_pair(static_cast<std::size_t>(ga), static_cast<std::size_t>(gb), false);
}

std::string RankClasses::class_of(const std::vector<int>& ranks) const {
  const auto pair_class = [this](int a, int b) -> std::optional<LinkClass> {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (a >= 0 && b >= 0 && ua < place_.size() && ub < place_.size() && place_[ua].host != place_[ub].host) {
      return LinkClass{PathClass::kSys, 0, true};
    }
    const std::optional<PairInfo> p = pair(a, b);
    if (!p) return std::nullopt;
    if (a == b) return LinkClass{};
    return LinkClass{p->cls, p->nvlinks, false};
  };
  const std::optional<LinkClass> worst = worst_link_class(ranks, pair_class);
  return worst ? worst->label() : "";
}

}  // namespace pipebench
