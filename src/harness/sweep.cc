// SPDX-License-Identifier: Apache-2.0
// Google Benchmark glue. Pitfall avoided: Google Benchmark sizes its iteration count from each
// process's own clock, which would make ranks disagree and deadlock; every benchmark here has a fixed
// count (Iterations(reps)) and manual time, the maximum over ranks, so all ranks make identical calls.
#include "harness/sweep.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "collectives/registry.h"
#include "core/error.h"
#include "harness/watchdog.h"

namespace pipebench {
namespace {

class NullReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

}  // namespace

std::vector<Point> plan_points(const BenchConfig& c) {
  std::vector<Point> points;
  for (const auto& name : c.ops) {
    const Op& op = OpRegistry::instance().find("--op", name);
    const std::vector<RedOp> redops = op.reduces() ? c.redops : std::vector<RedOp>{RedOp::kNone};
    for (DType t : c.dtypes) {
      for (RedOp r : redops) {
        for (auto size : c.sizes_bytes) {
          points.push_back({&op, t, r, size, false});
          if (op.supports_in_place()) points.push_back({&op, t, r, size, true});
        }
      }
    }
  }
  return points;
}

std::string point_name(const Point& p) {
  return std::string(p.op->name()) + "/" + std::string(dtype_name(p.dtype)) + "/" +
         std::string(redop_name(p.redop)) + "/" + std::to_string(p.requested_bytes) + "/" +
         (p.in_place ? "in-place" : "out-of-place");
}

bool wants_benchmark_display(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (starts_with(a, "--benchmark_format")) return true;
  }
  return false;
}

SweepSummary run_sweep(Backend& backend, const World& world, const BenchConfig& config,
                       const std::vector<Point>& points, RecordSink* sink) {
  // Google Benchmark's flags; ranks other than 0 must not write --benchmark_out as well.
  std::vector<std::string> args = {"pipebench"};
  for (const auto& a : config.benchmark_args) {
    if (world.rank() != 0 && starts_with(a, "--benchmark_out")) continue;
    args.push_back(a);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw UsageError(std::string(argv[1]) + ": unknown Google Benchmark flag");

  PointRunner runner(backend, world, config);
  std::size_t send_max = 0, recv_max = 0;
  for (const auto& p : points) {
    const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), backend.nranks(), config.params);
    send_max = std::max(send_max, s.send_bytes);
    recv_max = std::max(recv_max, s.recv_bytes);
  }
  runner.reserve(send_max, recv_max);

  SweepSummary summary;
  for (const auto& p : points) {
    const std::string name = point_name(p);
    benchmark::RegisterBenchmark(name.c_str(), [&, p, name](benchmark::State& state) {
      Watchdog dog(config.timeout_s, world, name);
      ResultRecord rec;
      try {
        runner.setup(p);
        for (auto _ : state) state.SetIterationTime(runner.time_batch());
        rec = runner.finish();
      } catch (const std::exception& e) {
        const std::string msg = std::string(e.what());
        if (world.size() > 1) {
          // Other ranks may sit in a collective: end the job rather than hang it.
          std::fprintf(stderr, "pipebench: %s failed on %s: %s; aborting the job\n", name.c_str(),
                       world.where().c_str(), msg.c_str());
          std::fflush(stderr);
          world.abort(static_cast<int>(ExitCode::kRuntimeError));
        }
        state.SkipWithError(msg.c_str());
        rec.op = std::string(p.op->name());
        rec.backend = std::string(backend.name());
        rec.nranks = backend.nranks();
        rec.dtype = std::string(dtype_name(p.dtype));
        rec.redop = std::string(redop_name(p.redop));
        rec.size_bytes = p.requested_bytes;
        rec.in_place = p.in_place;
        rec.op_has_in_place = p.op->supports_in_place();
        rec.error = msg;
      }
      state.counters["algbw_GBps"] = rec.algbw_gbps;
      state.counters["busbw_GBps"] = rec.busbw_gbps;
      state.counters["bytes"] = static_cast<double>(rec.size_bytes);
      state.counters["wrong"] = static_cast<double>(rec.wrong);
      ++summary.records;
      if (!rec.error.empty()) ++summary.errors;
      if (rec.wrong > 0) summary.wrong += static_cast<std::uint64_t>(rec.wrong);
      if (sink) sink->add(rec);
    })
        ->UseManualTime()
        ->Iterations(config.reps)
        ->Unit(benchmark::kMicrosecond);
  }
  NullReporter quiet;
  const bool display = world.rank() == 0 && wants_benchmark_display(config.benchmark_args);
  if (display) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::ClearRegisteredBenchmarks();
  return summary;
}

}  // namespace pipebench
