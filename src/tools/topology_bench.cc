// SPDX-License-Identifier: Apache-2.0
// `make bench` (topology part): `pipebench topo --xml X --format json` on generated hwloc XML exports of
// 256 and 4096 GPUs (tests/topology/big_hwloc_xml.h, no NVLink matrix): discovery, the one-byte pair
// classes and the streamed JSON, written to a file. Reports seconds, the JSON's size and the peak
// resident memory of the process. Target: a 4096-GPU topology in seconds and MBs.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "report/topology_report.h"
#include "topology/big_hwloc_xml.h"
#include "topology/discovery.h"

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void BM_TopoJson(benchmark::State& state) {
  const auto gpus = static_cast<std::size_t>(state.range(0));
  const std::string dir = "/tmp/pipebench_topology_bench_" + std::to_string(getpid());
  const std::string xml = dir + "_" + std::to_string(gpus) + ".xml", json = dir + ".json";
  pipebench::testing::write_big_hwloc_xml(xml, gpus, false);
  long long json_bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    pipebench::DiscoveryOptions o;
    o.hwloc_xml = xml;
    const pipebench::TopologyView v = pipebench::discover_topology(o);
    std::ofstream out(json);
    pipebench::write_topology_json(out, v);
    json_bytes = static_cast<long long>(out.tellp());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::remove(xml.c_str());
  std::remove(json.c_str());
  state.counters["seconds"] = seconds;
  state.counters["gpus"] = static_cast<double>(gpus);
  state.counters["json_MiB"] = static_cast<double>(json_bytes) / (1 << 20);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

}  // namespace

BENCHMARK(BM_TopoJson)->Arg(256)->Arg(4096)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
