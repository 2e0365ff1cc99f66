// SPDX-License-Identifier: Apache-2.0
// Made-up report inputs for the report tests: records, hosts and a small topology.
#pragma once

#include <string>
#include <vector>

#include "io/report_model.h"

namespace pipebench::testing {

inline ResultRecord make_record(const std::string& op, std::uint64_t size_bytes, double busbw_gbps,
                                double stddev_share = 0.01, int nranks = 2) {
  ResultRecord r;
  r.op = op;
  r.backend = "nccl";
  r.nranks = nranks;
  for (int i = 0; i < nranks; ++i) r.ranks.push_back(i);
  r.dtype = "float";
  r.redop = op == "all_reduce" ? "sum" : "none";
  r.size_bytes = size_bytes;
  r.count = size_bytes / 4;
  r.busbw_gbps = busbw_gbps;
  r.algbw_gbps = busbw_gbps;
  r.time_us = busbw_gbps > 0 ? static_cast<double>(size_bytes) / (busbw_gbps * 1e3) : 0;
  r.wrong = 0;
  r.stats.samples = 10;
  r.stats.median_us = r.time_us;
  r.stats.min_us = r.time_us * 0.98;
  r.stats.mean_us = r.time_us;
  r.stats.p95_us = r.time_us * 1.05;
  r.stats.max_us = r.time_us * 1.1;
  r.stats.stddev_us = r.time_us * stddev_share;
  r.ops_per_batch = 20;
  return r;
}

// A host with all_reduce at 1K..1M whose busbw grows to `peak_gbps` at the largest size.
inline InputFile<ResultSet> make_host(const std::string& host, double peak_gbps, int nranks = 2) {
  InputFile<ResultSet> in;
  in.path = "/tmp/" + host + ".json";
  SystemInfo& sys = in.doc.system;
  sys.hosts = {host};
  sys.gpu_models = {"NVIDIA H100"};
  sys.versions = {{"cuda_driver", "13.0"}, {"nccl", "2.28.3"}, {"mpi", "Open MPI v4.1.6"}};
  in.doc.tool_version = "0.1.0";
  in.doc.created_utc = "2026-12-02T10:00:00Z";
  in.doc.command_line = "pipebench bench -b 1K -e 1M";
  for (int r = 0; r < nranks; ++r)
    sys.devices.push_back({{r, host, "0000:" + std::to_string(10 + r) + ":00.0"}, 0, r, "NVIDIA H100"});
  for (std::uint64_t s = 1024; s <= (1u << 20); s *= 4) {
    const double share = static_cast<double>(s) / static_cast<double>(1u << 20);
    in.doc.records.push_back(make_record("all_reduce", s, peak_gbps * share, 0.01, nranks));
  }
  return in;
}

// The topology of make_host's GPUs: every pair NV18, its path limited to `link_gbps`; PCIe Gen5 x16 at
// its maximum.
inline InputFile<TopologyFile> make_topology(const std::string& host, int ngpus, double link_gbps) {
  InputFile<TopologyFile> t;
  t.path = "/tmp/topo.json";
  t.doc.host = host;
  for (int g = 0; g < ngpus; ++g) {
    TopologyGpu gpu;
    gpu.index = g;
    gpu.bus_id = "00000000:" + std::to_string(10 + g) + ":00.0";
    gpu.model = "NVIDIA H100";
    gpu.pcie_gen = gpu.pcie_gen_max = 5;
    gpu.pcie_width = gpu.pcie_width_max = 16;
    t.doc.gpus.push_back(gpu);
  }
  for (int a = 0; a < ngpus; ++a) {
    for (int b = a + 1; b < ngpus; ++b) {
      TopologyGpuPair p;
      p.a = a, p.b = b;
      p.cls = *parse_link_class("NV18");
      p.path_min_gbps = link_gbps;
      t.doc.gpu_pairs.push_back(p);
    }
  }
  return t;
}

}  // namespace pipebench::testing
