// SPDX-License-Identifier: Apache-2.0
// Samples every GPU's PCIe link state in the background while a benchmark runs, and keeps the highest
// generation and width seen: an idle GPU reads Gen1 on purpose, a loaded one shows what it trained to.
// link_snapshot() reads the links once (PCIe and NVLink up/down), for the start and end of a run.
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "topology/topology.h"

namespace pipebench {

// One GPU's links at one moment (a results file's system.link_state.start/end) or the highest seen while
// the run went on (link_state_during_run, over `samples` readings). 0 (-1 for NVLink counts) = unknown.
struct LinkStateEntry {
  int gpu = -1;
  std::string bus_id;
  int pcie_gen = 0, pcie_width = 0, pcie_gen_max = 0, pcie_width_max = 0;
  int nvlinks_up = -1, nvlinks_down = -1;
  int samples = 0;
};

// Every GPU's links now (NVML, then sysfs where readable), for the start and end of a run; what this
// reading does not find stays unknown. NVLinks come from NVML only; a link present but not active counts
// as down.
[[nodiscard]] std::vector<LinkStateEntry> link_snapshot(Topology t);

class LinkSampler {
 public:
  // Samples a copy of t every interval_ms until stop() or destruction.
  LinkSampler(const Topology& t, int interval_ms = 250);
  ~LinkSampler();
  LinkSampler(const LinkSampler&) = delete;
  LinkSampler& operator=(const LinkSampler&) = delete;
  // Per GPU the highest generation and width seen, the maximum, and the samples taken.
  [[nodiscard]] std::vector<LinkStateEntry> stop();

 private:
  void sample();
  Topology t_;
  int interval_ms_;
  std::atomic<bool> stop_{false};
  std::vector<LinkStateEntry> seen_;  // per GPU of t_
  std::thread thread_;
};

}  // namespace pipebench
