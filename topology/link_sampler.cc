// SPDX-License-Identifier: Apache-2.0
// Background link-state sampling (sysfs, then NVML where sysfs says nothing).
#include "topology/link_sampler.h"

#include <algorithm>
#include <chrono>

#include "topology/nvml_probe.h"
#include "topology/sysfs_links.h"

namespace pipebench {

std::vector<LinkStateEntry> link_snapshot(Topology t) {
  std::string why;
  // Only what this reading finds: the current state from discovery would pass for a reading of now.
  for (auto& g : t.gpus) {
    g.nvlinks_up = g.nvlinks_down = -1;
    TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    n.link_gen = n.link_width = 0;
  }
  (void)enrich_with_nvml(t, &why);
  (void)read_sysfs_links(t);
  std::vector<LinkStateEntry> out;
  for (const auto& g : t.gpus) {
    const TopoNode& n = t.nodes[static_cast<std::size_t>(g.node)];
    out.push_back(
        {g.index, g.bus_id, n.link_gen, n.link_width, n.link_gen_max, n.link_width_max, g.nvlinks_up, g.nvlinks_down});
  }
  return out;
}

LinkSampler::LinkSampler(const Topology& t, int interval_ms) : t_(t), interval_ms_(interval_ms) {
  for (const auto& g : t_.gpus) seen_.push_back({g.index, g.bus_id});
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
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    const TopoNode& n = t_.nodes[static_cast<std::size_t>(t_.gpus[i].node)];
    seen_[i].pcie_gen = std::max(seen_[i].pcie_gen, n.link_gen);
    seen_[i].pcie_width = std::max(seen_[i].pcie_width, n.link_width);
    ++seen_[i].samples;
  }
}

std::vector<LinkStateEntry> LinkSampler::stop() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  for (std::size_t i = 0; i < seen_.size(); ++i) {
    const TopoNode& n = t_.nodes[static_cast<std::size_t>(t_.gpus[i].node)];
    seen_[i].pcie_gen_max = n.link_gen_max;
    seen_[i].pcie_width_max = n.link_width_max;
  }
  return seen_;
}

}  // namespace pipebench
