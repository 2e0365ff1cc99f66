// SPDX-License-Identifier: Apache-2.0
// Discovery front door: the source (live, hwloc XML, NCCL XML), live enrichment (sysfs, NVML, CUDA),
// optional sampling under load, then pair classes and warnings.
#pragma once

#include <string>
#include <vector>

#include "topology/pair_classifier.h"
#include "topology/topology.h"

namespace pipebench {

struct DiscoveryOptions {
  std::string hwloc_xml;    // --xml
  std::string nccl_xml;     // --nccl-xml
  bool under_load = false;  // --under-load: sample link state while a device copy runs
};

struct TopologyView {
  Topology topology;
  bool under_load = false;
  std::vector<PairInfo> gpu_pairs;  // n x n, row-major
  std::vector<PairInfo> nic_pairs;  // GPU-major
  std::vector<std::string> warnings;
};

// Throws UsageError for bad files and impossible options (--under-load without GPUs or with a file).
[[nodiscard]] TopologyView discover_topology(const DiscoveryOptions& options);

// Pair classes and warnings of an already built Topology.
[[nodiscard]] TopologyView analyze_topology(Topology t, bool under_load);

}  // namespace pipebench
