// SPDX-License-Identifier: Apache-2.0
// Benchmark: one report over 100 hosts x 10 results files (each an all_reduce, all_gather,
// reduce_scatter... sweep of 8 B .. 1 GiB, each record with its path's link), from reading the files to
// the default rules, node diagnosis and every plot, written to a temporary folder. Target: under 5 s on
// the development machine (src/app/report.md). Then inputs whose time must grow linearly with their
// size (target: the time per item, us_per_item, about the same at every size): a trace file with
// 50k..200k kernel rows on one device, read and reported; an nccl-tests -J file with 50k..200k entries
// in config.devices, read as report reads a log.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/report_inputs.h"
#include "collectives/registry.h"
#include "core/file_io.h"
#include "io/results_io.h"
#include "io/trace_io.h"
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
  r.redop = OpRegistry::instance().find("--op", op).traits().reduces ? "sum" : "none";
  r.size_bytes = size;
  r.busbw_gbps = r.algbw_gbps = busbw;
  r.time_us = static_cast<double>(size) / (busbw * 1e3);
  r.wrong = 0;
  r.stats = {20, r.time_us * 0.97, r.time_us, r.time_us, r.time_us * 1.05, r.time_us * 1.1, r.time_us * 0.02};
  r.link_class = "NV18";
  r.path_min_gbps = 450.0;
  return r;
}

ReportInputs make_inputs(int hosts, int files_per_host) {
  static const char* kOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv"};
  ReportInputs in;
  for (int h = 0; h < hosts; ++h) {
    const double peak = h == 17 ? 240 : 360 + (h % 7);  // one slow host for the diagnosis to find
    for (int f = 0; f < files_per_host; ++f) {
      InputFile<ResultSet> r;
      const std::string host = "node" + std::to_string(h);
      r.path = "/results/" + host + "/run" + std::to_string(f) + ".json";
      r.doc.tool_version = "0.1.0";
      r.doc.command_line = "pipebench bench";
      r.doc.system.hosts = {host};
      r.doc.system.gpu_models = {"NVIDIA H100 80GB HBM3"};
      for (int g = 0; g < 8; ++g)
        r.doc.system.devices.push_back({{g, host, "0000:" + std::to_string(10 + g) + ":00.0"}, 0, g, ""});
      for (std::uint64_t s = 8; s <= (1ull << 30); s *= 2) {
        const double share = static_cast<double>(s) / (static_cast<double>(s) + 4e6);
        r.doc.records.push_back(make_record(kOps[f % 5], s, peak * share + 0.01, 8));
      }
      in.results.push_back(std::move(r));
    }
  }
  return in;
}

// The inputs as files, through the results writer: what `pipebench report` reads.
std::vector<std::string> write_inputs(const ReportInputs& in, const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& r : in.results) {
    nlohmann::json doc = results_header(r.doc);
    for (const auto& rec : r.doc.records) doc["records"].push_back(record_to_json(rec));
    const std::string path = dir + "/" + r.doc.system.hosts.front() + "-" + std::to_string(paths.size()) + ".json";
    write_output_file("", path, doc.dump());
    paths.push_back(path);
  }
  return paths;
}

void BM_Report100Hosts(benchmark::State& state) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("pipebench_report_bench_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir + "/in");
  const std::vector<std::string> files = write_inputs(make_inputs(100, 10), dir + "/in");
  for (auto _ : state) {
    const ReportInputs in = load_report_inputs(files, "");
    benchmark::DoNotOptimize(write_report(in, default_rules(), dir + "/out"));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  state.counters["records"] = 100.0 * 10 * 28;
}
BENCHMARK(BM_Report100Hosts)->Unit(benchmark::kMillisecond)->Iterations(2);

std::string bench_folder(const std::string& name) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("pipebench_report_bench_" + name + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  return dir;
}

// A trace file (trace --json) of one device with `kernels` distinct kernel rows.
std::string write_trace(const std::string& dir, std::int64_t kernels) {
  TraceFile t;
  t.path = "bench.sqlite";
  t.source = "nsys-sqlite";
  t.tool_version = "0.1.0";
  t.kernel_rows = kernels;
  TraceDevice d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.span_us = 1e6;
  d.busy_share = 0.5;
  d.kernel_count = kernels;
  for (std::int64_t k = 0; k < kernels; ++k) {
    TraceKernel row;
    row.name = "kernel_" + std::to_string(k);
    row.stream = 7;
    row.count = 1;
    row.total_us = row.min_us = row.max_us = row.mean_us = 1.0 + static_cast<double>(kernels - k) * 1e-3;
    row.share = row.total_us / 1e6;
    d.kernels.push_back(std::move(row));
  }
  t.devices.push_back(std::move(d));
  const std::string path = dir + "/trace.json";
  write_output_file("", path, trace_to_json(t).dump());
  return path;
}

void BM_ReportTraceKernels(benchmark::State& state) {
  const std::string dir = bench_folder("trace");
  const std::string file = write_trace(dir, state.range(0));
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const ReportInputs in = load_report_inputs({file}, "");
    benchmark::DoNotOptimize(write_report(in, default_rules(), dir + "/out"));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  state.counters["us_per_item"] = seconds * 1e6 / static_cast<double>(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReportTraceKernels)->Arg(50000)->Arg(100000)->Arg(200000)->Unit(benchmark::kMillisecond)->Iterations(1);

// nccl-tests' all_reduce -J fixture with `devices` entries in config.devices.
std::string write_nccl_tests_json(const std::string& dir, std::int64_t devices) {
  nlohmann::json j = nlohmann::json::parse(read_input_file("", TEST_DATA_DIR "/nccl-tests/all_reduce_perf-2.19.json"));
  const nlohmann::json one = j["config"]["devices"][0];
  j["config"]["devices"] = nlohmann::json::array();
  for (std::int64_t i = 0; i < devices; ++i) j["config"]["devices"].push_back(one);
  const std::string path = dir + "/all_reduce_perf.json";
  write_output_file("", path, j.dump());
  return path;
}

void BM_ReadNcclTestsJsonDevices(benchmark::State& state) {
  const std::string dir = bench_folder("devices");
  const std::string file = write_nccl_tests_json(dir, state.range(0));
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(load_report_inputs({file}, ""));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  state.counters["us_per_item"] = seconds * 1e6 / static_cast<double>(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReadNcclTestsJsonDevices)
    ->Arg(50000)
    ->Arg(100000)
    ->Arg(200000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
