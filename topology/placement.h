// SPDX-License-Identifier: Apache-2.0
// Where each rank ran: its host and, on the host whose topology is known, its GPU, with what joins the GPUs
// of those ranks. The one placement behind every link class of a group of ranks (the class stamped on a
// record, predict's class map and its shared paths): ranks on different hosts are "NET", ranks of one host
// take their GPUs' pair class.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "topology/link_class.h"

namespace pipebench {

// One rank as a results file's system.devices (or the run's own device list) names it.
struct DevicePlace {
  int rank = -1;
  std::string host;    // "" when the file does not say
  std::string bus_id;  // normalised; "" for host ranks
};

// What joins GPU a to GPU b of the known topology.
struct GpuLink {
  LinkClass cls;
  std::vector<std::string> path;  // the links a transfer from a to b crosses; empty when not read
  double path_min_gbps = 0;       // the narrowest link's theoretical GB/s per direction; 0 = unknown
};

// The link of GPUs a and b (indices in the known topology); nullopt when unknown.
using GpuLinkFn = std::function<std::optional<GpuLink>(int gpu_a, int gpu_b)>;

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
  // Keeps `link` of every ordered pair of GPUs that hold ranks (a GPU with itself included): the
  // placement then answers for its ranks alone, whatever the size of the topology.
  void link_gpus(const GpuLinkFn& link);

  // Global rank -> GPU index, for the ranks placed on a GPU of the known topology.
  [[nodiscard]] std::map<int, int> gpu_of_rank() const;
  // The GPU of a rank; nullopt when it is not on a GPU of the known topology.
  [[nodiscard]] std::optional<int> gpu_of(int rank) const;
  // Whether two ranks are known to sit on different hosts (both hosts named and not equal).
  [[nodiscard]] bool across_hosts(int a, int b) const;
  // The link between the GPUs of ranks a and b; null when a rank is not on a GPU or the link is unknown.
  [[nodiscard]] const GpuLink* link(int a, int b) const;
  // Whether two different ranks have a known link.
  [[nodiscard]] bool knows_a_pair() const;
  // The class of a pair of ranks: NET across hosts, else their GPUs' link class, X for a rank with itself
  // on a GPU; nullopt when a rank is not placed on a GPU or the link is unknown.
  [[nodiscard]] std::optional<LinkClass> pair_class(int a, int b) const;
  // The worst pair of `ranks` (topology/link_class.h); nullopt when a pair is unknown.
  [[nodiscard]] std::optional<LinkClass> class_of(const std::vector<int>& ranks) const;

 private:
  struct Place {
    std::string host;
    int gpu = -1;  // index in the known topology; -1 when not on one of its GPUs
  };
  std::map<int, Place> place_;
  std::map<std::pair<int, int>, GpuLink> links_;  // (GPU a, GPU b) of placed ranks -> their link
};

}  // namespace pipebench
