// SPDX-License-Identifier: Apache-2.0
// Benchmark: one report over 100 hosts x 10 results files (each an all_reduce, all_gather,
// reduce_scatter... sweep of 8 B .. 1 GiB), with the default rules, node diagnosis and every plot,
// written to a temporary folder. Target: under 5 s on the development machine (README, "pipebench report").
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "report/report_writer.h"

namespace {

using namespace pipebench;

ResultRecord make_record(const std::string& op, std::uint64_t size, double busbw, int rank_count) {
  ResultRecord r;
  r.op = op;
  r.backend = "nccl";
  r.nranks = rank_count;
  for (int i = 0; i < rank_count; ++i) r.ranks.push_back(i);
  r.dtype = "float";
  r.redop = op == "all_reduce" || op == "reduce_scatter" ? "sum" : "none";
  r.size_bytes = size;
  r.busbw_gbps = r.algbw_gbps = busbw;
  r.time_us = static_cast<double>(size) / (busbw * 1e3);
  r.wrong = 0;
  r.stats = {20, r.time_us * 0.97, r.time_us, r.time_us, r.time_us * 1.05, r.time_us * 1.1, r.time_us * 0.02};
  return r;
}

ReportInputs make_inputs(int hosts, int files_per_host) {
  static const char* kOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv"};
  ReportInputs in;
  for (int h = 0; h < hosts; ++h) {
    const double peak = h == 17 ? 240 : 360 + (h % 7);  // one slow host for the diagnosis to find
    for (int f = 0; f < files_per_host; ++f) {
      ResultsInput r;
      r.host = "node" + std::to_string(h);
      r.hosts = {r.host};
      r.path = "/results/" + r.host + "/run" + std::to_string(f) + ".json";
      r.gpu_models = {"NVIDIA H100 80GB HBM3"};
      for (int g = 0; g < 8; ++g) {
        r.rank_bus_ids.push_back("0000:" + std::to_string(10 + g) + ":00.0");
        r.rank_hosts.push_back(r.host);
      }
      for (std::uint64_t s = 8; s <= (1ull << 30); s *= 2) {
        const double share = static_cast<double>(s) / (static_cast<double>(s) + 4e6);
        r.records.push_back(make_record(kOps[f % 5], s, peak * share + 0.01, 8));
      }
      in.results.push_back(std::move(r));
    }
  }
  return in;
}

void BM_Report100Hosts(benchmark::State& state) {
  const ReportInputs in = make_inputs(100, 10);
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("pipebench_report_bench_" + std::to_string(getpid()))).string();
  for (auto _ : state) {
    benchmark::DoNotOptimize(write_report(in, default_rules(), dir));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  state.counters["records"] = 100.0 * 10 * 28;
}
BENCHMARK(BM_Report100Hosts)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
