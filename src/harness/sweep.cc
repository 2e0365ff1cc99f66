// SPDX-License-Identifier: Apache-2.0
// Google Benchmark glue. Pitfall avoided: Google Benchmark sizes its iteration count from each
// process's own clock, which would make ranks disagree and deadlock; every benchmark here has a fixed
// count (Iterations(reps)) and manual time, the maximum over ranks, so all ranks make identical calls.
#include "harness/sweep.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/file_io.h"
#include "harness/benchmark_flags.h"
#include "harness/heartbeats.h"
#include "harness/interrupt.h"
#include "harness/progress.h"
#include "harness/watchdog.h"

namespace pipebench {
namespace {

class NullReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

std::vector<Point> plan_points(const SweepSpec& c) {
  std::vector<Point> points;
  for (const Op* each : c.ops) {
    const Op& op = *each;
    // Started as an nccl-tests binary: its placements and its loop over -o operations (collectives/op.h).
    const bool in_place = times_in_place(op, c);
    const std::vector<RedOp> redops = op.traits().reduces || (c.nccl_tests_points && op.traits().nccl_tests_names_redop)
                                          ? c.redops
                                          : std::vector<RedOp>{RedOp::kNone};
    for (DType t : c.dtypes) {
      for (RedOp r : redops) {
        for (auto size : c.sizes_bytes) {
          points.push_back({&op, t, r, size, false});
          if (in_place) points.push_back({&op, t, r, size, true});
        }
      }
    }
  }
  return points;
}

std::string point_name(const Point& p) {
  return std::string(p.op->name()) + "/" + std::string(dtype_name(p.dtype)) + "/" + std::string(redop_name(p.redop)) +
         "/" + std::to_string(p.requested_bytes) + "/" + (p.in_place ? "in-place" : "out-of-place");
}

bool wants_benchmark_display(const std::vector<std::string>& args) {
  return !parse_benchmark_flags(args).display_format.empty();
}

namespace {

// Google Benchmark's flags other than its output flags (benchmark_flags.h: pipebench writes those).
void init_benchmark(const BenchmarkFlags& flags) {
  std::vector<std::string> args = flags.library_args;
  // argv[0] outlives the call: Google Benchmark keeps the pointer as the context's "executable" and
  // reads it when each sweep reports (a pointer into `args` would dangle by then). It only reads it.
  std::vector<char*> argv = {const_cast<char*>("pipebench")};
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw UsageError(std::string(argv[1]) + ": unknown Google Benchmark flag");
}

// Google Benchmark's reporter for --benchmark_out_format, writing into `out`. The CSV reporter is
// deprecated upstream but is what --benchmark_out_format=csv has always given.
std::unique_ptr<benchmark::BenchmarkReporter> file_reporter(const std::string& format, std::ostream& out) {
  std::unique_ptr<benchmark::BenchmarkReporter> r;
  if (format == "console") {
    r = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  } else if (format == "csv") {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    r = std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  } else {
    r = std::make_unique<benchmark::JSONReporter>();
  }
  r->SetOutputStream(&out);
  r->SetErrorStream(&out);
  return r;
}

// Hands every report to the display reporter and, when there is one, to the file's.
class TeeReporter final : public benchmark::BenchmarkReporter {
 public:
  TeeReporter(benchmark::BenchmarkReporter& display, benchmark::BenchmarkReporter* file)
      : display_(display), file_(file) {}
  bool ReportContext(const Context& c) override {
    const bool shown = display_.ReportContext(c);
    return (file_ ? file_->ReportContext(c) : true) && shown;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    display_.ReportRuns(runs);
    if (file_) file_->ReportRuns(runs);
  }
  void Finalize() override {
    display_.Finalize();
    if (file_) file_->Finalize();
  }

 private:
  benchmark::BenchmarkReporter& display_;
  benchmark::BenchmarkReporter* file_;
};

// The record of a point that threw.
ResultRecord failed_record(const Point& p, const Backend& comm, const SweepSpec& sweep, const std::string& msg) {
  ResultRecord rec;
  rec.op = std::string(p.op->name());
  rec.backend = std::string(comm.name());
  rec.nranks = comm.nranks();
  rec.dtype = std::string(dtype_name(p.dtype));
  rec.redop = std::string(redop_name(p.redop));
  rec.size_bytes = p.requested_bytes;
  rec.in_place = p.in_place;
  rec.op_has_in_place = times_in_place(*p.op, sweep);
  if (p.op->traits().is_transfer && p.params) {
    rec.pairs = p.params->pairs;
    rec.bidirectional = p.params->bidirectional;
  }
  rec.error = msg;
  return rec;
}

// The loop's state: one PointRunner at a time, on the communicator of the current run of points.
class MeasuringLoop {
 public:
  MeasuringLoop(Backend& backend, const World& world, const MeasureSettings& settings, const SweepSpec& sweep,
                const std::vector<SweepPoint>& points, RecordSink* sink)
      : backend_(backend),
        world_(world),
        settings_(settings),
        sweep_(sweep),
        points_(points),
        sink_(sink),
        beats_(settings.timeout_s != 0 ? Heartbeats::create(world) : nullptr) {}

  [[nodiscard]] Backend& comm_of(std::size_t i) const { return points_[i].comm ? *points_[i].comm : backend_; }
  [[nodiscard]] Point point_of(std::size_t i) const {
    Point p = points_[i].point;
    if (points_[i].params) p.params = &*points_[i].params;
    return p;
  }
  [[nodiscard]] std::string label_of(std::size_t i) const {
    return points_[i].label.empty() ? point_name(points_[i].point) : points_[i].label;
  }

  // A runner for point i's communicator, its buffers sized for the run of points on it that starts at i.
  void start_run(std::size_t i) {
    runner_.reset();
    runner_comm_ = nullptr;
    Backend& comm = comm_of(i);
    runner_ = std::make_unique<PointRunner>(comm, world_, settings_, sweep_);
    std::size_t send_max = 0, recv_max = 0;
    for (std::size_t j = i; j < points_.size() && &comm_of(j) == &comm; ++j) {
      const Point p = point_of(j);
      const OpParams& params = p.params ? *p.params : sweep_.params;
      const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), comm.nranks(), params);
      send_max = std::max(send_max, s.send_bytes);
      recv_max = std::max(recv_max, s.recv_bytes);
    }
    runner_->reserve(send_max, recv_max);
    runner_comm_ = &comm;
  }

  void measure(std::size_t i, benchmark::State& state) {
    if (stop_requested()) {
      ++summary_.skipped;
      state.SkipWithError("interrupted");
      return;
    }
    const std::string name = label_of(i);
    const Point p = point_of(i);
    test_stop(i);
    // The point's operations: warm-up, timed batches, data-check runs (each a fill, an op and a check).
    const std::int64_t ops = std::int64_t{settings_.warmup} + std::int64_t{settings_.iters} * settings_.reps +
                             3 * std::int64_t{settings_.checks};
    Watchdog dog(point_timeout_s(settings_.timeout_s, p.requested_bytes, ops), world_,
                 settings_.timeout_s < 0 ? name + " (the default -T for its size; -T 0: none)" : name, beats_.get());
    ResultRecord rec;
    try {
      if (runner_comm_ != &comm_of(i)) start_run(i);  // (a --benchmark_filter may skip points)
      runner_->setup(p);
      for (auto _ : state) state.SetIterationTime(runner_->time_batch());
      rec = runner_->finish();
    } catch (const std::exception& e) {
      const std::string msg = std::string(e.what());
      if (world_.size() > 1) {
        // Other ranks may sit in a collective: end the job rather than hang it.
        std::fprintf(stderr, "pipebench: %s failed on %s: %s; aborting the job\n", name.c_str(), world_.where().c_str(),
                     msg.c_str());
        std::fflush(stderr);
        world_.abort(static_cast<int>(ExitCode::kRuntimeError));
      }
      state.SkipWithError(msg.c_str());
      rec = failed_record(p, comm_of(i), sweep_, msg);
    }
    state.counters["algbw_GBps"] = rec.algbw_gbps;
    state.counters["busbw_GBps"] = rec.busbw_gbps;
    state.counters["bytes"] = static_cast<double>(rec.size_bytes);
    state.counters["wrong"] = static_cast<double>(rec.wrong);
    ++summary_.records;
    if (!rec.error.empty()) ++summary_.errors;
    if (rec.wrong > 0) summary_.wrong += static_cast<std::uint64_t>(rec.wrong);
    if (!sink_) return;
    sink_->add(rec);
    // --split: each group's own record follows the row over all groups (every rank holds them alike).
    if (rec.split_aggregate) {
      for (const auto& g : runner_->group_records()) sink_->add(g);
    }
  }

  [[nodiscard]] const SweepSummary& summary() const { return summary_; }

 private:
  // Whether any rank got SIGINT/SIGTERM; every rank asks before every point, so all stop at the same one.
  bool stop_requested() {
    if (summary_.interrupted_by != 0) return true;
    const int sig = interrupt_signal();
    if (world_.all(sig == 0)) return false;
    summary_.interrupted_by = static_cast<int>(world_.max(sig));
    return true;
  }

  // Test hook for the stopped-rank path: PIPEBENCH_BENCH_TEST_STOP="RANK:POINT" makes global rank RANK stop
  // before point POINT (0-based, in the order measured) as `kill -STOP` would: its heartbeat stands still
  // and it sleeps 60 s before making that point's watchdog, so only the ranks waiting on it can speak.
  // Unset (always, outside tests): no effect. Malformed: ignored.
  void test_stop(std::size_t point) {
    const char* spec = std::getenv("PIPEBENCH_BENCH_TEST_STOP");
    int rank = -1;
    long long index = -1;
    if (!spec || std::sscanf(spec, "%d:%lld", &rank, &index) != 2) return;
    if (rank != world_.rank() || index != static_cast<long long>(point)) return;
    if (beats_) beats_->hold();
    std::this_thread::sleep_for(std::chrono::seconds(60));
  }

  Backend& backend_;
  const World& world_;
  const MeasureSettings& settings_;
  const SweepSpec& sweep_;
  const std::vector<SweepPoint>& points_;
  RecordSink* sink_;
  std::unique_ptr<PointRunner> runner_;
  Backend* runner_comm_ = nullptr;  // the communicator runner_ measures on
  SweepSummary summary_;
  std::unique_ptr<Heartbeats> beats_;  // null: one process, -T 0, or no folder for them
};

// The filter of the sweep: --benchmark_filter, or one that matches every point. Google Benchmark's own
// default ("." for "" and "all") makes it reserve its list of benchmarks one family (one point) at a time,
// each reserve a reallocation that copies every point before it, which makes a sweep's time quadratic in
// its points. "^" matches every name as "." does, without that path.
std::string every_point_filter() {
  const std::string filter = benchmark::GetBenchmarkFilter();
  return filter.empty() || filter == "all" || filter == "." ? "^" : filter;
}

// Runs the registered benchmarks. Rank 0 shows Google Benchmark's output when --benchmark_format asks
// for it and writes --benchmark_out (its own reporter into memory, then an atomic, checked write: the
// file holds the latest sweep, as Google Benchmark's own reopening of the file did). The display
// reporter is always passed in: Google Benchmark deletes its default one after a call it made it for,
// and that one is a static it hands out again (1.7: the next sweep of -N would use freed memory).
void run_registered(const World& world, const BenchmarkFlags& flags) {
  NullReporter quiet;
  const bool rank0 = world.rank() == 0;
  benchmark::BenchmarkReporter& display =
      rank0 && !flags.display_format.empty() ? *benchmark::CreateDefaultDisplayReporter() : quiet;
  std::ostringstream text;
  std::unique_ptr<benchmark::BenchmarkReporter> file;
  if (rank0 && !flags.out_path.empty()) file = file_reporter(flags.out_format, text);
  TeeReporter both(display, file.get());
  benchmark::RunSpecifiedBenchmarks(&both, every_point_filter());
  if (!file) return;
  try {
    write_output_file("--benchmark_out", flags.out_path, text.str());
  } catch (const Error& e) {
    // The path was checked before measuring (check_benchmark_flags): a failure now is the file system's,
    // on rank 0 alone; a plain Error makes main end the whole job.
    throw Error(e.what());
  }
}

}  // namespace

SweepSummary run_sweep(Backend& backend, const World& world, const MeasureSettings& settings, const SweepSpec& sweep,
                       const std::vector<SweepPoint>& points, RecordSink* sink) {
  const BenchmarkFlags flags = parse_benchmark_flags(settings.benchmark_args);
  init_benchmark(flags);
  // Rank 0 (the one with a sink): "point N of M" on stderr.
  std::unique_ptr<Progress> progress;
  std::unique_ptr<ProgressSink> counted;
  if (sink && !settings.quiet) {
    progress = std::make_unique<Progress>(std::cerr, Progress::stderr_is_tty(), "point",
                                          static_cast<std::int64_t>(points.size()));
    counted = std::make_unique<ProgressSink>(*sink, *progress);
    sink = counted.get();
  }
  MeasuringLoop loop(backend, world, settings, sweep, points, sink);
  if (!points.empty()) loop.start_run(0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string name = loop.label_of(i);
    benchmark::RegisterBenchmark(name.c_str(), [&loop, i](benchmark::State& state) { loop.measure(i, state); })
        ->UseManualTime()
        ->Iterations(settings.reps)
        ->Unit(benchmark::kMicrosecond);
  }
  run_registered(world, flags);
  benchmark::ClearRegisteredBenchmarks();
  return loop.summary();
}

void require_measured(const SweepSummary& summary, std::size_t points, const MeasureSettings& settings) {
  if (summary.records > 0 || points == 0) return;
  // Every rank applies the same filter, so every rank throws here.
  std::string filter = "--benchmark_filter";
  for (const auto& a : settings.benchmark_args) {
    if (a.rfind("--benchmark_filter", 0) == 0) filter = a;
  }
  throw UsageError(filter + ": matches none of the " + std::to_string(points) + " points");
}

SweepSummary run_sweep(Backend& backend, const World& world, const MeasureSettings& settings, const SweepSpec& sweep,
                       const std::vector<Point>& points, RecordSink* sink) {
  std::vector<SweepPoint> items;
  items.reserve(points.size());
  for (const auto& p : points) items.push_back({p, std::nullopt, nullptr, {}});
  return run_sweep(backend, world, settings, sweep, items, sink);
}

}  // namespace pipebench
