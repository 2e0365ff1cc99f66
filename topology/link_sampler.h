// SPDX-License-Identifier: Apache-2.0
// Samples every GPU's PCIe link state in the background while a benchmark runs, and keeps the highest
// generation and width seen: an idle GPU reads Gen1 on purpose, a loaded one shows what it trained to.
// link_snapshot() reads the links once (PCIe and NVLink up/down), for the start and end of a run.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

// Every GPU's links now (NVML, then sysfs where readable), for the start and end of a run:
// [{gpu, bus_id, pcie_gen, pcie_width, pcie_gen_max, pcie_width_max, nvlinks_up, nvlinks_down}], unknown
// values null. NVLinks come from NVML only; a link present but not active counts as down.
[[nodiscard]] nlohmann::json link_snapshot(Topology t);

class LinkSampler {
 public:
  // Samples a copy of t every interval_ms until stop() or destruction.
  LinkSampler(const Topology& t, int interval_ms = 250);
  ~LinkSampler();
  LinkSampler(const LinkSampler&) = delete;
  LinkSampler& operator=(const LinkSampler&) = delete;
  // [{gpu, bus_id, pcie_gen_seen, pcie_width_seen, pcie_gen_max, pcie_width_max, samples}]
  [[nodiscard]] nlohmann::json stop();

 private:
  void sample();
  Topology t_;
  int interval_ms_;
  std::atomic<bool> stop_{false};
  std::vector<int> gen_seen_, width_seen_;
  int samples_ = 0;
  std::thread thread_;
};

}  // namespace pipebench
