// SPDX-License-Identifier: Apache-2.0
// Sweep: runs a list of points, each as a Google Benchmark benchmark with manual time and a fixed
// iteration count (--reps), so --benchmark_format/--benchmark_out give Google Benchmark's own output
// with the counters algbw_GBps, busbw_GBps and bytes. Every rank registers and runs the same
// benchmarks; only rank 0 reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "harness/bench_config.h"
#include "harness/point_runner.h"
#include "launch/world.h"
#include "report/sink.h"

namespace pipebench {

struct SweepSummary {
  int records = 0;
  int errors = 0;
  std::uint64_t wrong = 0;
};

// The points of a config: op x dtype x redop (reducing ops) x size x {out-of-place, in-place}.
[[nodiscard]] std::vector<Point> plan_points(const BenchConfig& config);

// "all_reduce/float/sum/1048576/out-of-place"
[[nodiscard]] std::string point_name(const Point& p);

// Whether --benchmark_format was given: Google Benchmark's console output then replaces our table.
[[nodiscard]] bool wants_benchmark_display(const std::vector<std::string>& benchmark_args);

// Throws UsageError for --benchmark_* flags Google Benchmark does not know.
// sink may be null (ranks other than 0).
[[nodiscard]] SweepSummary run_sweep(Backend& backend, const World& world, const BenchConfig& config,
                                     const std::vector<Point>& points, RecordSink* sink);

}  // namespace pipebench
