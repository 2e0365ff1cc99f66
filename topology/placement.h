// SPDX-License-Identifier: Apache-2.0
// Where each rank ran: its host and, on the host whose topology is known, its GPU. The one placement
// behind every link class of a group of ranks (the class stamped on a record, predict's class map and
// its shared paths): ranks on different hosts are "NET", ranks of one host take their GPUs' pair class.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topology/link_class.h"

namespace pipebench {

// One rank as a results file's system.devices (or the run's own device list) names it.
struct DevicePlace {
  int rank = -1;
  std::string host;    // "" when the file does not say
  std::string bus_id;  // normalised; "" for host ranks
};

// The class of the pair of GPUs a and b (indices in the known topology, a != b); nullopt when unknown.
using GpuPairClassFn = std::function<std::optional<LinkClass>(int gpu_a, int gpu_b)>;

class Placement {
 public:
  Placement() = default;
  // `gpu_of_bus`: the GPUs of the topology of `host` by normalised bus id. A rank of that host whose bus
  // id names one of them is placed on it; so is a rank whose device names no host (a file that does not
  // say where its ranks ran stands for one host). Ranks of other hosts keep their host and no GPU.
  Placement(const std::vector<DevicePlace>& devices, const std::string& host,
            const std::map<std::string, int>& gpu_of_bus);
  // Rank i on GPU i of one host: a bare topology file, whose ranks are its GPUs.
  [[nodiscard]] static Placement rank_per_gpu(const std::vector<int>& gpus);

  // Global rank -> GPU index, for the ranks placed on a GPU of the known topology.
  [[nodiscard]] std::map<int, int> gpu_of_rank() const;
  // The GPU of a rank; nullopt when it is not on a GPU of the known topology.
  [[nodiscard]] std::optional<int> gpu_of(int rank) const;
  // Whether two ranks are known to sit on different hosts (both hosts named and not equal).
  [[nodiscard]] bool across_hosts(int a, int b) const;
  // The class of a pair of ranks: NET across hosts, else their GPUs' pair (`gpu_pair`), X for a rank with
  // itself on a GPU; nullopt when a rank is not placed on a GPU.
  [[nodiscard]] std::optional<LinkClass> pair_class(int a, int b, const GpuPairClassFn& gpu_pair) const;

 private:
  struct Place {
    std::string host;
    int gpu = -1;  // index in the known topology; -1 when not on one of its GPUs
  };
  std::map<int, Place> place_;
};

}  // namespace pipebench
