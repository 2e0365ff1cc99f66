// SPDX-License-Identifier: Apache-2.0
// Background link-state sampling (sysfs, then NVML where sysfs says nothing).
#include "topology/link_sampler.h"

#include <algorithm>
#include <chrono>

#include "topology/nvml_probe.h"
#include "topology/sysfs_links.h"

namespace pipebench {

nlohmann::json link_snapshot(Topology t) {
  std::string why;
  // Only what this reading finds: the current state from discovery would pass for a reading of now.
  for (auto& g : t.gpus) {
    g.nvlinks_up = g.nvlinks_down = -1;
    TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    n.link_gen = n.link_width = 0;
  }
  (void)enrich_with_nvml(t, &why);
  (void)read_sysfs_links(t);
  auto v = [](int x) { return x >= 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  auto pcie = [](int x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : t.gpus) {
    const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    out.push_back({{"gpu", g.index},
                   {"bus_id", g.bus_id},
                   {"pcie_gen", pcie(n.link_gen)},
                   {"pcie_width", pcie(n.link_width)},
                   {"pcie_gen_max", pcie(n.link_gen_max)},
                   {"pcie_width_max", pcie(n.link_width_max)},
                   {"nvlinks_up", v(g.nvlinks_up)},
                   {"nvlinks_down", v(g.nvlinks_down)}});
  }
  return out;
}

LinkSampler::LinkSampler(const Topology& t, int interval_ms)
    : t_(t), interval_ms_(interval_ms), gen_seen_(t.gpus.size(), 0), width_seen_(t.gpus.size(), 0) {
  if (t_.gpus.empty()) return;
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      sample();
      for (int waited = 0; waited < interval_ms_ && !stop_.load(); waited += 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  });
}

LinkSampler::~LinkSampler() { (void)stop(); }

void LinkSampler::sample() {
  if (read_sysfs_links(t_) == 0) {
    std::string why;
    (void)enrich_with_nvml(t_, &why);
  }
  for (std::size_t i = 0; i < t_.gpus.size(); ++i) {
    const TopoNode& n = t_.nodes[static_cast<std::size_t>(t_.gpus[i].node)];
    gen_seen_[i] = std::max(gen_seen_[i], n.link_gen);
    width_seen_[i] = std::max(width_seen_[i], n.link_width);
  }
  ++samples_;
}

nlohmann::json LinkSampler::stop() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < t_.gpus.size(); ++i) {
    const TopoNode& n = t_.nodes[static_cast<std::size_t>(t_.gpus[i].node)];
    auto v = [](int x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
    out.push_back({{"gpu", t_.gpus[i].index},
                   {"bus_id", t_.gpus[i].bus_id},
                   {"pcie_gen_seen", v(gen_seen_[i])},
                   {"pcie_width_seen", v(width_seen_[i])},
                   {"pcie_gen_max", v(n.link_gen_max)},
                   {"pcie_width_max", v(n.link_width_max)},
                   {"samples", samples_}});
  }
  return out;
}

}  // namespace pipebench
