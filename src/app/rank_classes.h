// SPDX-License-Identifier: Apache-2.0
// The link class of the ranks a record ran on: the worst pair class of the group (nvidia-smi's names),
// "NET" when ranks sit on different hosts, empty on host ranks (the MPI backend has no GPUs). The ranks
// are placed by topology/placement.h, as predict places those of a results file.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/discovery.h"
#include "topology/placement.h"

namespace pipebench {

class RankClasses {
 public:
  // devices: system["devices"] (rank, host, bus_id per rank); view: the topology of `host`.
  RankClasses(const nlohmann::json& devices, const TopologyView* view, const std::string& host);
  // "" when unknown (host ranks, a host whose topology is not here).
  [[nodiscard]] std::string class_of(const std::vector<int>& ranks) const;
  // The pair of two ranks (without its links), or nullopt.
  [[nodiscard]] std::optional<PairInfo> pair(int a, int b) const;

 private:
  Placement placement_;
  const TopologyView* view_;
};

}  // namespace pipebench
