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
inline ResultsInput make_host(const std::string& host, double peak_gbps, int nranks = 2) {
  ResultsInput in;
  in.path = "/tmp/" + host + ".json";
  in.host = host;
  in.hosts = {host};
  in.gpu_models = {"NVIDIA H100"};
  in.versions = {{"cuda_driver", "13.0"}, {"nccl", "2.28.3"}, {"mpi", "Open MPI v4.1.6"}};
  in.tool_version = "0.1.0";
  in.created_utc = "2026-12-02T10:00:00Z";
  in.command_line = "pipebench bench -b 1K -e 1M";
  for (int r = 0; r < nranks; ++r) {
    in.rank_bus_ids.push_back("0000:" + std::to_string(10 + r) + ":00.0");
    in.rank_hosts.push_back(host);
  }
  for (std::uint64_t s = 1024; s <= (1u << 20); s *= 4) {
    const double share = static_cast<double>(s) / static_cast<double>(1u << 20);
    in.records.push_back(make_record("all_reduce", s, peak_gbps * share, 0.01, nranks));
  }
  return in;
}

// The topology of make_host's GPUs: every pair's path limited to `link_gbps`.
inline TopologyInput make_topology(const std::string& host, int ngpus, double link_gbps) {
  TopologyInput t;
  t.host = host;
  t.path = "/tmp/topo.json";
  for (int g = 0; g < ngpus; ++g) {
    t.gpu_bus_ids.push_back("00000000:" + std::to_string(10 + g) + ":00.0");
    t.gpu_models.push_back("NVIDIA H100");
    t.links.push_back({g, t.gpu_bus_ids.back(), 5, 16, 5, 16});
  }
  for (int a = 0; a < ngpus; ++a) {
    for (int b = a + 1; b < ngpus; ++b) {
      t.pair_class[{a, b}] = "NV18";
      t.path_min_gbps[{a, b}] = link_gbps;
    }
  }
  return t;
}

}  // namespace pipebench::testing
