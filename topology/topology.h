// SPDX-License-Identifier: Apache-2.0
// Topology: a plain, serialisable picture of one node's PCIe tree, GPUs, NICs, NUMA nodes and NVLinks,
// built by hwloc (live or from an XML export) or from NCCL's topology XML, and enriched on a live node
// by sysfs, NVML and CUDA. All sources are joined on the normalised PCI bus id ("0000:18:00.0").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// Ordered like NCCL's PATH_* (shared reference topology.md §2.2), with nvidia-smi's NODE between PHB
// and SYS, so "at most PXB" is a comparison.
enum class PathClass : std::uint8_t { kSelf = 0, kNvLink, kPix, kPxb, kPhb, kNode, kSys };

// "X", "NV4", "PIX", "PXB", "PHB", "NODE", "SYS" (nvidia-smi topo -m).
[[nodiscard]] std::string class_label(PathClass c, int nvlinks);
// NCCL's name for the same path: NODE has no NCCL level and becomes PHB (topology.md §0 item 8).
[[nodiscard]] std::string_view nccl_path_name(PathClass c);

enum class NodeKind { kNormal, kHostBridge, kBridge, kDevice };

// One object of the tree that matters for paths: a PCI device, a bridge, or a normal (CPU-side) object.
struct TopoNode {
  NodeKind kind = NodeKind::kNormal;
  int parent = -1;
  std::string label;         // "Package:0", "HostBridge", "Bridge 0000:00:01.0", a bus id
  std::string bus_id;        // PCI devices and PCI-PCI bridges
  bool is_switch = false;    // a PCIe switch (upstream port): counted for PIX/PXB
  bool ncclish_cpu = false;  // a <cpu> of NCCL XML: devices meeting here are PHB, not NODE
  std::vector<int> numa;     // normal objects: the NUMA nodes they hold
  double link_gbps = 0;      // the link above this object, theoretical GB/s per direction; 0 = unknown
  int link_gen = 0, link_width = 0, link_gen_max = 0, link_width_max = 0;  // 0 = unknown
};

struct Gpu {
  int index = 0;  // nvidia-smi order (PCI bus order)
  int node = -1;  // in Topology::nodes
  std::string bus_id;
  std::string model;
  int numa = -1;
  std::string cpuset;                      // "0-11,24-35", empty when unknown
  int cuda_device = -1;                    // on a live node, the CUDA device index of this process
  int nvlinks_up = -1, nvlinks_down = -1;  // NVML: NVLinks active and present but down; -1 = unknown
};

struct Nic {
  std::string name;  // mlx5_0, eth0, or the bus id
  int node = -1;     // -1: no PCI path (a virtual NIC of NCCL XML)
  std::string bus_id;
  int numa = -1;
  bool rdma = true;  // an RDMA device (InfiniBand/RoCE/EFA): what NCCL's network transport uses
};

struct Topology {
  std::string source;  // "hwloc (live)", "hwloc XML FILE", "NCCL XML FILE"
  std::string host;
  std::string cpu_vendor;  // GenuineIntel, AuthenticAMD, ...
  std::vector<TopoNode> nodes;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  // nvlinks[i][j]: NVLinks between GPU i and GPU j (through NVSwitch: the fewer of both GPUs' links).
  std::vector<std::vector<int>> nvlinks;
  bool nvlink_known = false;        // an NVLink source was read (NVML, hwloc NVLinkBandwidth, NCCL XML)
  double nvlink_gbps_per_link = 0;  // per direction
  // p2p_access[i][j]: cudaDeviceCanAccessPeer; -1 unknown.
  std::vector<std::vector<int>> p2p_access;
  // p2p_rank[i][j]: cudaDevP2PAttrPerformanceRank (relative, 0 best); -1 unknown.
  std::vector<std::vector<int>> p2p_rank;
  std::vector<std::string> notes;     // how it was built, what was missing
  std::vector<std::string> problems;  // what the reader found wrong in its source (shown as warnings)
};

// Limits of one topology (README "Limits"). A topology is one machine's tree; its pair tables (text
// matrix, JSON "pairs", the results file's "system" block) grow with the square of the GPUs and NICs. The
// largest single machines hold tens of GPUs; a file with thousands is refused once read, before any pair.
inline constexpr std::size_t kMaxTopologyGpus = 4096;
inline constexpr std::size_t kMaxTopologyNics = 256;

// Throws UsageError "WHERE: N GPUs, above the limit of 256 in one topology" (or NICs).
void check_topology_size(const std::string& where, const Topology& t);

// "0000:18:00.0" from any of "18:00.0", "0000:18:00.0", "00000000:18:00.0", upper or lower case.
[[nodiscard]] std::string normalize_bus_id(std::string_view bus_id);

}  // namespace pipebench
