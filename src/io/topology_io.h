// SPDX-License-Identifier: Apache-2.0
// The topology file ("schema": "pipebench.topology/1", `pipebench topo --format json`, and the
// "topology" block of a results file's "system"), read back as far as predict and the cost models use
// it: the GPUs (model, PCIe link at discovery), the class, path and narrowest link of every GPU pair, the
// warnings. Fields added after the first files (models, links, path_min_gbps, command_line) are optional.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topology/link_class.h"
#include "topology/placement.h"

namespace pipebench {

struct TopologyView;  // topology/discovery.h
struct Topology;      // topology/topology.h
struct Gpu;

inline constexpr const char* kTopologySchema = "pipebench.topology/1";

// One object on a GPU's chain to the root of its tree ("pcie_chain" in newer files).
struct ChainLink {
  int node = -1;     // the writer's tree node id: equal ids on two chains are one object
  std::string link;  // the link above it, "pcie:0000:18:00.0"
  double gbps = 0;   // its theoretical GB/s per direction; 0 = unknown
};

struct TopologyGpu {
  int index = 0;
  std::string bus_id;  // normalised
  std::string model;
  int pcie_gen = 0, pcie_width = 0, pcie_gen_max = 0, pcie_width_max = 0;  // at discovery; 0 = unknown
  std::vector<ChainLink> pcie_chain;                                       // empty in older files
};

struct TopologyGpuPair {
  int a = 0, b = 0;  // GPU indices
  LinkClass cls;
  std::vector<std::string> path;  // the links it crosses
  double path_min_gbps = 0;       // the narrowest link's theoretical GB/s per direction; 0 = unknown
};

struct TopologyFile {
  std::string host;
  std::vector<TopologyGpu> gpus;
  std::vector<TopologyGpuPair> gpu_pairs;  // "kind": "gpu-gpu" pairs; GPU-NIC pairs are not read
  std::vector<std::string> warnings;
  std::string command_line;  // "" in files written before it was recorded
};

// A file read back becomes a record per GPU pair here and in the cost models' pair maps (about a
// kilobyte per pair with its links), so a file is read up to 256 GPUs (65280 pairs); `topo` itself
// goes to kMaxTopologyGpus.
inline constexpr std::size_t kMaxTopologyFileGpus = 256;

// Reads "pair_matrix" (written since topologies scale past 64 GPUs) when present, else the "pairs" list.
// Throws UsageError naming `where` and the field for another schema, a missing or mistyped field.
[[nodiscard]] TopologyFile topology_from_json(const nlohmann::json& j, const std::string& where);

// GPU g's PCIe chain from itself up to the root of its tree, as the file holds it ("pcie_chain": what a
// reader needs to rebuild any pair's links); gbps 0 where the link's speed is unknown.
[[nodiscard]] std::vector<ChainLink> pcie_chain(const Topology& t, const Gpu& g);

// A topology this process discovered, as a reader of its file holds it, without writing and reading the JSON:
// field for field what topology_from_json makes of report/topology_report.h's topology_to_json(v) (a test
// holds the two against each other on every topology fixture).
[[nodiscard]] TopologyFile topology_file(const TopologyView& v);

// The ranks of `devices` placed on the GPUs of `t`, with the links of its GPU pairs. `t` is the topology of
// the host that wrote the file: ranks of other hosts are placed on their host alone (NET to this one),
// never on a GPU of this host with the same bus id.
[[nodiscard]] Placement place_ranks(const TopologyFile& t, const std::vector<DevicePlace>& devices);
// A bare topology file: rank i is GPU i.
[[nodiscard]] Placement place_ranks(const TopologyFile& t);

}  // namespace pipebench
