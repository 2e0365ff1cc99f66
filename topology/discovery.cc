// SPDX-License-Identifier: Apache-2.0
// Discovery and enrichment. The PB_HAVE_NCCL switch (CUDA present) lives here for the topology side.
#include "topology/discovery.h"

#include <chrono>
#include <thread>

#include "core/error.h"
#include "topology/hwloc_discovery.h"
#include "topology/link_health.h"
#include "topology/nccl_xml.h"
#include "topology/nvml_probe.h"
#include "topology/sysfs_links.h"
#include "topology/topology_checks.h"

#if PB_HAVE_NCCL
#include "topology/cuda_topology.h"
#endif

namespace pipebench {
namespace {

// Live-only facts: sysfs link state, NVML, CUDA device numbers and peer access.
void enrich_live(Topology& t) {
  if (read_sysfs_links(t) == 0) t.notes.push_back("sysfs PCIe link state not readable: link generation/width unknown");
  std::string why;
  if (!enrich_with_nvml(t, &why)) {
    t.notes.push_back("NVML not used (" + why + "): NVLinks unknown, GPU pairs classified from PCIe alone");
  }
#if PB_HAVE_NCCL
  const auto devices = cuda_devices();
  for (const auto& d : devices) {
    for (auto& g : t.gpus) {
      if (g.bus_id == d.bus_id) {
        g.cuda_device = d.device;
        if (g.model.rfind("NVIDIA [", 0) == 0 || g.model.empty()) g.model = d.name;
      }
    }
  }
  const std::size_t n = t.gpus.size();
  t.p2p_access.assign(n, std::vector<int>(n, -1));
  t.p2p_rank.assign(n, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i != j && t.gpus[i].cuda_device >= 0 && t.gpus[j].cuda_device >= 0) {
        t.p2p_access[i][j] = cuda_can_access_peer(t.gpus[i].cuda_device, t.gpus[j].cuda_device);
        t.p2p_rank[i][j] = cuda_p2p_performance_rank(t.gpus[i].cuda_device, t.gpus[j].cuda_device);
      }
    }
  }
#endif
}

void sample_under_load(Topology& t) {
#if PB_HAVE_NCCL
  std::vector<int> devices;
  for (const auto& g : t.gpus) {
    if (g.cuda_device >= 0) devices.push_back(g.cuda_device);
  }
  if (devices.empty()) throw UsageError("--under-load: no GPU visible to CUDA to put a copy load on");
  CopyLoad load(devices);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // links retrain within microseconds; be generous
  read_sysfs_links(t);
  std::string why;
  (void)enrich_with_nvml(t, &why);
  char buf[96];
  std::snprintf(buf, sizeof buf, "link state sampled under a host<->device copy load (%.1f GB/s over %zu GPU%s)",
                load.bytes_per_second() / 1e9, devices.size(), devices.size() == 1 ? "" : "s");
  t.notes.push_back(buf);
#else
  (void)t;
  throw UsageError("--under-load: this pipebench was built without CUDA");
#endif
}

}  // namespace

TopologyView analyze_topology(Topology t, bool under_load) {
  TopologyView v;
  check_topology_size(t.source, t);                             // before any table of pairs is built
  const std::vector<std::string> problems = check_topology(t);  // first: resets absurd link values
  v.topology = std::move(t);
  v.under_load = under_load;
  v.tree = PcieTree(v.topology);
  v.gpu_classes = classify_gpu_pairs(v.topology, v.tree);
  v.nic_classes = classify_gpu_nic_pairs(v.topology, v.tree);
  v.warnings = link_warnings(v);
  v.warnings.insert(v.warnings.begin(), problems.begin(), problems.end());
  return v;
}

TopologyView discover_topology(const DiscoveryOptions& o) {
  if (!o.hwloc_xml.empty() && !o.nccl_xml.empty()) throw UsageError("--xml and --nccl-xml cannot be combined");
  if (o.under_load && (!o.hwloc_xml.empty() || !o.nccl_xml.empty())) {
    throw UsageError("--under-load samples this machine's links; it cannot be combined with --xml/--nccl-xml");
  }
  Topology t;
  if (!o.nccl_xml.empty()) {
    t = parse_nccl_xml("--nccl-xml", o.nccl_xml);
    check_topology_size("--nccl-xml " + o.nccl_xml, t);
  } else {
    t = discover_with_hwloc("--xml", o.hwloc_xml);
    check_topology_size(o.hwloc_xml.empty() ? std::string("this machine") : "--xml " + o.hwloc_xml, t);
    if (o.hwloc_xml.empty()) {
      enrich_live(t);
      if (o.under_load) sample_under_load(t);
    } else if (!t.nvlink_known) {
      t.notes.push_back("no NVLinkBandwidth matrix in this export: GPU pairs classified from PCIe alone");
    }
  }
  return analyze_topology(std::move(t), o.under_load);
}

GpuLinkFn links_of(const TopologyView& view) {
  return [&view](int a, int b) -> std::optional<GpuLink> {
    const PairInfo p = view.gpu_pair(static_cast<std::size_t>(a), static_cast<std::size_t>(b), false);
    return GpuLink{LinkClass{p.cls, p.nvlinks, false}, {}, p.path_min_gbps};
  };
}

}  // namespace pipebench
