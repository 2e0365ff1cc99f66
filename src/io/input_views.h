// SPDX-License-Identifier: Apache-2.0
// What the report derives from the one value of a results or topology file, computed when asked: hosts,
// the ranks' devices, each GPU's links over a run, GPUs by index.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/report_model.h"

namespace pipebench {

// system.hosts, then the hosts of its devices not among them, each once.
[[nodiscard]] std::vector<std::string> hosts_of(const ResultSet& rs);
// The first of hosts_of, else its topology's host, else its folder's name, else its path.
[[nodiscard]] std::string host_of(const InputFile<ResultSet>& in);
// The device of global rank `rank` (the last that names it); nullptr when none does.
[[nodiscard]] const DevicePlace* device_of_rank(const ResultSet& rs, int rank);

// The GPUs its link state names (system.link_state, link_state_during_run), ascending; empty without one.
[[nodiscard]] std::vector<int> link_state_gpus(const ResultSet& rs);
// GPU `gpu`'s entry in `list` (the last naming it); unknowns (gpu -1) where none does.
[[nodiscard]] LinkStateEntry link_entry(const std::vector<LinkStateEntry>& list, int gpu);
// GPU `gpu` over the run: the PCIe link sampled highest while it ran (without samples the better snapshot:
// an idle GPU drops its link), the highest maximum of any entry, its NVLinks at the end.
[[nodiscard]] LinkStateEntry link_over_run(const ResultSet& rs, int gpu);

// One more than the highest GPU index shown (0 to 4096).
[[nodiscard]] std::size_t gpu_count(const TopologyFile& t);
// The lowest index of a GPU with this (normalised) bus id.
[[nodiscard]] std::optional<int> gpu_of_bus(const TopologyFile& t, const std::string& bus_id);
// The PCIe link at discovery of each GPU where it is known, in the file's order (NVLinks unknown).
[[nodiscard]] std::vector<LinkStateEntry> links_at_discovery(const TopologyFile& t);

}  // namespace pipebench
