// SPDX-License-Identifier: Apache-2.0
// Sweep: the one measuring loop of every measuring command (bench, bench --plan, pairs, run). It runs a
// list of points, each as a Google Benchmark benchmark with manual time and a fixed iteration count
// (--reps), so --benchmark_format/--benchmark_out give Google Benchmark's own output with the counters
// algbw_GBps, busbw_GBps and bytes; each point under the watchdog (-T, by default from the point's size:
// harness/watchdog.h), its failure caught, counted and recorded; every record to the sink, and rank 0's
// progress ("point N of M", time left) on stderr unless settings.quiet (harness/progress.h). Every rank registers and
// runs the same benchmarks; only rank 0 reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "harness/measure_settings.h"
#include "harness/point_runner.h"
#include "harness/sink.h"
#include "harness/sweep_spec.h"
#include "launch/world.h"

namespace pipebench {

struct SweepSummary {
  int records = 0;
  int errors = 0;
  std::uint64_t wrong = 0;
  int interrupted_by = 0;  // SIGINT/SIGTERM when the sweep stopped early (harness/interrupt.h), else 0
  int skipped = 0;         // points left unmeasured after that
};

// One point of the loop and where it runs.
struct SweepPoint {
  Point point;                     // point.params is set by the loop from `params`
  std::optional<OpParams> params;  // empty: the sweep's
  Backend* comm = nullptr;         // null: the loop's backend; else a communicator that outlives the loop
  std::string label;               // names the benchmark and the watchdog's message; empty: point_name(point)
};

// The points of a sweep: op x dtype x redop (reducing ops) x size x {out-of-place, in-place}.
[[nodiscard]] std::vector<Point> plan_points(const SweepSpec& sweep);

// "all_reduce/float/sum/1048576/out-of-place"
[[nodiscard]] std::string point_name(const Point& p);

// Whether --benchmark_format was given: Google Benchmark's console output then replaces our table.
[[nodiscard]] bool wants_benchmark_display(const std::vector<std::string>& benchmark_args);

// Measures every point in order; records go to sink, in order, failed points included (their error
// set). A point that throws is counted in errors; with more than one process it aborts the job (other
// ranks may wait in a collective). Points on the same communicator in a row share one buffer
// allocation, sized for the largest of them. Throws UsageError for --benchmark_* flags Google Benchmark
// does not know. sink may be null (ranks other than 0).
[[nodiscard]] SweepSummary run_sweep(Backend& backend, const World& world, const MeasureSettings& settings,
                                     const SweepSpec& sweep, const std::vector<SweepPoint>& points, RecordSink* sink);

// The same for points on the loop's backend with the sweep's params.
[[nodiscard]] SweepSummary run_sweep(Backend& backend, const World& world, const MeasureSettings& settings,
                                     const SweepSpec& sweep, const std::vector<Point>& points, RecordSink* sink);

// For a command whose sweep is the whole job (bench, bench --plan): points were given but none ran (a
// --benchmark_filter matching nothing) is bad input, not a pass. Throws UsageError naming the filter.
void require_measured(const SweepSummary& summary, std::size_t points, const MeasureSettings& settings);

}  // namespace pipebench
