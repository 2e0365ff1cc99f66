// SPDX-License-Identifier: Apache-2.0
// `pipebench pairs`.
#include "app/pairs_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "app/gpu_options.h"
#include "app/host_relaunch.h"
#include "backend/backend_factory.h"
#include "collectives/pair.h"
#include "collectives/registry.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/units.h"
#include "harness/sweep.h"
#include "report/pairs_printer.h"
#include "service/bench_sweep.h"
#include "service/record_outputs.h"
#include "service/report_session.h"

namespace pipebench {
namespace {

std::vector<RankPair> chosen_pairs(const PairsOptions& o, int n) {
  if (!o.pairs.empty()) return o.pairs;
  std::vector<RankPair> pairs;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) pairs.push_back({i, j});
    }
  }
  return pairs;
}

BenchConfig pairs_config(const PairsOptions& o) {
  BenchConfig base;
  base.sweep.ops = {&OpRegistry::instance().transfer_op()};
  base.sweep.sizes_bytes = o.sizes_bytes;
  base.gpus_per_process = o.gpus_per_process;
  base.measure.iters = o.iters;
  base.measure.warmup = o.warmup;
  base.measure.reps = o.reps;
  base.measure.checks = o.checks;
  base.measure.timeout_s = o.timeout_s;
  base.measure.quiet = o.quiet;
  base.outputs = o.outputs;
  return base;
}

// One matrix: its title and its points (a contiguous range of the loop's points).
struct MatrixBatch {
  std::string title;
  std::size_t count = 0;
};

// One way, then both ways; each at every size; each pair (both ways at once: once per unordered pair).
std::vector<SweepPoint> pair_points(const Op& op, const std::vector<RankPair>& pairs, const PairsOptions& o,
                                    std::vector<MatrixBatch>& batches) {
  std::vector<SweepPoint> points;
  for (const bool bidir : {false, true}) {
    for (const auto size : o.sizes_bytes) {
      MatrixBatch batch{std::string(bidir ? "bidirectional" : "unidirectional") + " send/recv at " + format_size(size)};
      for (const auto& pr : pairs) {
        if (bidir && pr.src > pr.dst &&
            std::find(pairs.begin(), pairs.end(), RankPair{pr.dst, pr.src}) != pairs.end()) {
          continue;  // both ways at once: measured once for the unordered pair
        }
        SweepPoint sp{{&op, DType::kFloat, RedOp::kNone, size, false}, OpParams{}, nullptr, {}};
        sp.params->pairs = {pr};
        sp.params->bidirectional = bidir;
        sp.label = point_name(sp.point) + " " + std::to_string(pr.src) + ":" + std::to_string(pr.dst);
        points.push_back(std::move(sp));
        ++batch.count;
      }
      batches.push_back(std::move(batch));
    }
  }
  return points;
}

// Rank 0: forwards every record to the report, fills the current matrix and prints it when complete.
class MatrixSink final : public RecordSink {
 public:
  MatrixSink(RecordSink& next, const std::vector<SweepPoint>& points, std::vector<MatrixBatch> batches, int n,
             const ReportSession& report)
      : next_(next), points_(points), batches_(std::move(batches)), n_(n), report_(report) {}
  void add(const ResultRecord& rec) override {
    next_.add(rec);
    const OpParams& p = *points_.at(index_++).params;
    const RankPair pr = p.pairs.front();
    if (rec.error.empty()) {
      busbw_gbps_[{pr.src, pr.dst}] = rec.busbw_gbps;
      if (p.bidirectional) busbw_gbps_[{pr.dst, pr.src}] = rec.busbw_gbps;
    }
    while (batch_ < batches_.size() && index_ == done_ + batches_[batch_].count) {
      print_pair_matrix(std::cout, batches_[batch_].title, n_, busbw_gbps_, report_.placement());
      done_ += batches_[batch_++].count;
      busbw_gbps_.clear();
    }
  }

 private:
  RecordSink& next_;
  const std::vector<SweepPoint>& points_;
  std::vector<MatrixBatch> batches_;
  int n_;
  const ReportSession& report_;
  std::map<std::pair<int, int>, double> busbw_gbps_;  // of the current matrix
  std::size_t index_ = 0, batch_ = 0, done_ = 0;
};

}  // namespace

int run_pairs_on(Backend& backend, const PairsOptions& o, const World& world) {
  const int n = backend.nranks();
  const Op& op = OpRegistry::instance().transfer_op();
  const std::vector<RankPair> pairs = chosen_pairs(o, n);
  OpParams check;
  check.pairs = pairs;
  if (!pairs.empty()) op.validate(n, check);
  const BenchConfig base = pairs_config(o);
  if (!pairs.empty()) {  // refuse sizes that cannot fit before allocating anything
    BenchConfig probe = base;
    probe.sweep.params.pairs = {pairs.front()};
    probe.sweep.params.bidirectional = true;
    validate_for_backend(probe, backend, world);
  }
  ReportSession report(world, backend, o.outputs.json_path, o.outputs.csv_path, bench_config_json(base));
  open_record_outputs(report, {report.system(), base, backend, world, std::nullopt});
  const bool speak = world.rank() == 0;
  if (speak) {
    print_pairs_header(std::cout, n, std::string(backend.name()), backend.kind() == BackendKind::kNccl, o.sizes_bytes,
                       report.placement());
  }
  if (n < 2) {
    report.finish();
    return static_cast<int>(ExitCode::kOk);
  }
  std::vector<MatrixBatch> batches;
  const std::vector<SweepPoint> points = pair_points(op, pairs, o, batches);
  std::unique_ptr<MatrixSink> matrices;
  if (report.sink()) matrices = std::make_unique<MatrixSink>(*report.sink(), points, std::move(batches), n, report);
  const SweepSummary summary = run_sweep(backend, world, base.measure, base.sweep, points, matrices.get());
  report.finish();
  if (speak) print_pairs_verdict(std::cout, summary);
  return exit_status(summary);
}

namespace {

int run_pairs_command(const PairsOptions& o, const World& world) {
  const BackendKind kind = backend_for_gpus(o.backend, resolve_backend(o.backend, world), o.gpu_list);
  const int gpus = default_gpus_per_process(o.gpus_per_process, o.gpu_list, kind, world);
  auto backend = make_backend(kind, world, gpus, o.gpu_list);
  PairsOptions resolved = o;
  resolved.gpus_per_process = gpus;
  return run_pairs_on(*backend, resolved, world);
}

class PairsCommand final : public Subcommand {
 public:
  std::string name() const override { return "pairs"; }
  std::string summary() const override { return "every GPU pair, send/recv one way and both ways, as matrices"; }
  void add_options(CLI::App& sub) override;
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {
    o_.backend = parse_backend_kind("--backend", backend_);
    o_.sizes_bytes = parse_size_list("--sizes", sizes_);
    if (!pairs_.empty()) o_.pairs = parse_pairs("--pairs", pairs_);
    o_.gpu_list = parse_gpus_option(gpus_, o_.backend);
    require_distinct_files({}, record_output_files(o_.outputs));
  }
  bool needs_world() const override { return true; }
  void before_world(const std::vector<std::string>& args) override {
    // --gpus names GPUs: no fallback to host ranks (where none is visible, the one process says so).
    if (o_.gpu_list.empty()) relaunch_on_host_ranks(o_.backend, o_.host_ranks, args);
  }
  void check_launch(bool tcp_rendezvous) const override { require_backend_for_launch(o_.backend, tcp_rendezvous); }
  int run(const World* world) override { return run_pairs_command(o_, *world); }

 private:
  PairsOptions o_;
  std::string backend_ = "auto", sizes_ = "256K,64M", pairs_, gpus_;
};

void PairsCommand::add_options(CLI::App& sub) {
  sub.add_option("--sizes", sizes_, "message sizes")->capture_default_str();
  sub.add_option("--pairs", pairs_, "only these transfers SRC:DST,... (default: every ordered pair)");
  sub.add_option("--backend", backend_, "nccl, mpi or auto")->capture_default_str();
  sub.add_option("--host-ranks", o_.host_ranks, "MPI ranks to start under mpirun when no GPU is visible")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sub.add_option("--gpus", gpus_, kGpusOptionHelp);
  sub.add_option("-g,--ngpus", o_.gpus_per_process, "GPUs per process (default: all, or 1 per MPI rank)")
      ->check(CLI::Range(1, 1024));
  sub.add_option("-n,--iters", o_.iters, "ops per timed batch")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  sub.add_option("-w,--warmup_iters", o_.warmup, "untimed ops per point")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();
  sub.add_option("--reps", o_.reps, "timed batches per point")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  sub.add_option("-c,--check", o_.checks, "data-check runs per point")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_timeout_option(sub, o_.timeout_s);
  add_record_output_options(sub, o_.outputs, false);
  sub.add_flag("--quiet", o_.quiet, "no progress lines on stderr");
}

}  // namespace

std::unique_ptr<Subcommand> make_pairs_command() { return std::make_unique<PairsCommand>(); }

}  // namespace pipebench
