// SPDX-License-Identifier: Apache-2.0
// Discovery front door: the source (live, hwloc XML, NCCL XML), live enrichment (sysfs, NVML, CUDA),
// optional sampling under load, then pair classes and warnings.
#pragma once

#include <string>
#include <vector>

#include "topology/pair_classifier.h"
#include "topology/placement.h"
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
  PcieTree tree;            // of topology
  PairClasses gpu_classes;  // GPU x GPU, PCIe classes
  PairClasses nic_classes;  // GPU x NIC
  std::vector<std::string> warnings;

  [[nodiscard]] std::size_t gpu_count() const { return topology.gpus.size(); }
  [[nodiscard]] std::size_t nic_count() const { return topology.nics.size(); }
  // GPU i to GPU j; the links crossed only with with_path (strings: the costly part).
  [[nodiscard]] PairInfo gpu_pair(std::size_t i, std::size_t j, bool with_path = true) const {
    return gpu_pair_info(topology, tree, gpu_classes, i, j, with_path);
  }
  // GPU i to NIC k.
  [[nodiscard]] PairInfo nic_pair(std::size_t i, std::size_t k) const {
    return nic_pair_info(topology, tree, nic_classes, i, k);
  }
};

// Throws UsageError for bad files and impossible options (--under-load without GPUs or with a file).
[[nodiscard]] TopologyView discover_topology(const DiscoveryOptions& options);

// Pair classes and warnings of an already built Topology.
[[nodiscard]] TopologyView analyze_topology(Topology t, bool under_load);

// The links of the view's GPU pairs for Placement::link_gpus, without their paths (the costly part); the
// view must outlive the call.
[[nodiscard]] GpuLinkFn links_of(const TopologyView& view);

}  // namespace pipebench
