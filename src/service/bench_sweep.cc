// SPDX-License-Identifier: Apache-2.0
#include "service/bench_sweep.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/output_lock.h"
#include "core/split_expr.h"
#include "core/units.h"
#include "harness/benchmark_flags.h"
#include "harness/point_runner.h"
#include "report/bench_notices.h"
#include "report/bench_preamble.h"
#include "report/console_table.h"
#include "service/nccl_tests_mode.h"
#include "service/record_outputs.h"
#include "service/report_session.h"

namespace pipebench {
namespace {

// Memory NCCL may still take after initialisation (channel and proxy buffers grow on first use).
constexpr std::uint64_t kNcclReserveBytes = 1ull << 30;

// The ranks of these processes: ranks of process p are p*g .. p*g+g-1 (a process's -g GPUs stay together).
std::vector<int> ranks_of(const std::vector<int>& processes, int per_process) {
  std::vector<int> ranks;
  for (int p : processes) {
    for (int i = 0; i < per_process; ++i) ranks.push_back(p * per_process + i);
  }
  return ranks;
}

// --split: the ranks of this communicator whose processes share this process's colour (nccl-tests
// splits processes).
std::vector<int> split_members(const SplitRule& rule, int nranks, const World& world) {
  std::vector<int> processes;
  for (const auto& group : split_groups(rule, world.size())) {
    if (std::find(group.begin(), group.end(), world.rank()) != group.end())
      processes.insert(processes.end(), group.begin(), group.end());
  }
  return ranks_of(processes, nranks / world.size());
}

}  // namespace

void validate_for_backend(const BenchConfig& c, const Backend& backend, const World& world) {
  for (int g : c.sweep.group) {
    if (g >= backend.nranks()) {
      throw UsageError("--group: rank " + std::to_string(g) + " is out of range (ranks are 0.." +
                       std::to_string(backend.nranks() - 1) + ")");
    }
  }
  int nranks = c.sweep.group.empty() ? backend.nranks() : static_cast<int>(c.sweep.group.size());
  if (c.sweep.split) {
    const int per_process = backend.nranks() / world.size();
    for (const auto& g : split_groups(*c.sweep.split, world.size())) {
      nranks = std::min(nranks, static_cast<int>(g.size()) * per_process);  // every group must run every op
    }
  }
  for (const Op* op : c.sweep.ops) op->validate(nranks, c.sweep.params);
  if (c.measure.graph && !backend.supports_graphs()) throw UsageError("-G: CUDA graphs need the nccl backend");

  // Refuse before allocating: the largest point's buffers against free memory (min over ranks).
  const std::uint64_t margin = PointRunner::unalign_margin_bytes(c.measure) * 2;
  std::uint64_t need = margin;
  std::string what;
  for (const auto& p : plan_points(c.sweep)) {
    const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), nranks, c.sweep.params);
    if (s.send_bytes + s.recv_bytes + margin > need) {
      need = s.send_bytes + s.recv_bytes + margin;
      what = std::string(p.op->name()) + " at " + format_size(p.requested_bytes);
    }
  }
  const bool gpu = backend.kind() == BackendKind::kNccl;
  const std::uint64_t reserve = gpu ? kNcclReserveBytes : 0;
  const std::uint64_t free_bytes = world.min_u64(backend.nlocal() ? backend.free_memory_bytes() : UINT64_MAX);
  if (need + reserve > free_bytes) {
    throw UsageError("-e/--sizes: " + what + " needs " + format_gib(need) + " of buffers per rank, but only " +
                     format_gib(free_bytes) + " of " + (gpu ? "GPU" : "host") + " memory is free on the fullest rank" +
                     (gpu ? " (" + format_gib(reserve) + " is kept for NCCL)" : ""));
  }
}

nlohmann::json bench_config_json(const BenchConfig& c) {
  std::vector<std::string> ops, dtypes, redops;
  for (const Op* op : c.sweep.ops) ops.emplace_back(op->name());
  for (auto t : c.sweep.dtypes) dtypes.emplace_back(dtype_name(t));
  for (auto r : c.sweep.redops) redops.emplace_back(redop_name(r));
  return {{"ops", ops},
          {"sizes_bytes", c.sweep.sizes_bytes},
          {"dtypes", dtypes},
          {"redops", redops},
          {"gpus_per_process", c.gpus_per_process},
          {"iters", c.measure.iters},
          {"warmup", c.measure.warmup},
          {"reps", c.measure.reps},
          {"checks", c.measure.checks},
          {"graph", c.measure.graph},
          {"group", c.sweep.group},
          {"point_budget_s", c.measure.point_budget_s},
          {"agg_iters", c.measure.agg},
          {"run_cycles", c.cycles},
          {"average", static_cast<int>(c.measure.rank_stat)},
          {"blocking", c.measure.blocking},
          {"report_cputime", c.measure.cputime},
          {"unalign", c.measure.unalign_elems},
          {"per_iter_skip", c.measure.per_iter_skip},
          {"local_register", c.measure.buffers.registration},
          {"split", c.sweep.split ? nlohmann::json(c.sweep.split->text) : nlohmann::json(nullptr)}};
}

int interrupted_status(const SweepSummary& s, const BenchConfig& c, const World& world) {
  if (world.rank() == 0) {
    std::cout.flush();
    print_bench_interruption(
        std::cerr, s,
        {c.outputs.json_path, c.outputs.csv_path, parse_benchmark_flags(c.measure.benchmark_args).out_path});
  }
  return 128 + s.interrupted_by;
}

int exit_status(const SweepSummary& s) {
  if (s.wrong > 0) return static_cast<int>(ExitCode::kWrongData);
  if (s.errors > 0) return static_cast<int>(ExitCode::kRuntimeError);
  return static_cast<int>(ExitCode::kOk);
}

int exit_status(const SweepSummary& s, bool below_min_busbw, bool nccl_tests_binary) {
  // nccl-tests returns testNumResults (7) for wrong data or a low average alike (common.cu main).
  if (nccl_tests_binary && (s.wrong > 0 || below_min_busbw)) return static_cast<int>(ExitCode::kNcclTestsResults);
  const int status = exit_status(s);
  if (status == 0 && below_min_busbw) return static_cast<int>(ExitCode::kNcclTestsResults);
  return status;
}

namespace {

// -M: the largest point's buffers per rank.
std::uint64_t buffer_bytes(const BenchConfig& c, int nranks) {
  std::uint64_t buffers = 0;
  for (const auto& p : plan_points(c.sweep)) {
    const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), nranks, c.sweep.params);
    buffers = std::max<std::uint64_t>(buffers, s.send_bytes + s.recv_bytes);
  }
  return buffers + 2 * PointRunner::unalign_margin_bytes(c.measure);
}

// What the preamble shows; rank 0 after the report session has gathered the system block.
BenchPreamble preamble_of(const BenchConfig& c, const Backend& full, const Backend& comm, const ReportSession& report) {
  std::string link_class;
  if (report.placement() && c.nccl_tests_program.empty()) {
    std::vector<int> ranks;
    for (int i = 0; i < comm.nranks(); ++i) ranks.push_back(comm.global_rank(i));
    if (const std::optional<LinkClass> cls = report.placement()->class_of(ranks)) link_class = cls->label();
  }
  return {c.measure,        c.sweep,
          report.system(),  std::string(full.name()),
          full.versions(),  full.kind() == BackendKind::kNccl,
          full.nranks(),    c.gpus_per_process,
          link_class,       c.nccl_tests_program,
          c.threads,        nccl_tests_ngpus(c, full),
          c.step_factor,    c.step_bytes,
          c.per_iter_timing};
}

// The NCCL_TESTS_MIN_BW verdict (rank 0's, which it returns) beside the record outputs.
MinBusBwCheck* add_outputs(ReportSession& report, const BenchConfig& c, const Backend& full, const World& world,
                           std::optional<double> min_busbw) {
  open_record_outputs(report, {report.system(), c, full, world, min_busbw});
  if (world.rank() != 0) return nullptr;
  auto check = std::make_unique<MinBusBwCheck>(min_busbw);
  MinBusBwCheck* verdict = check.get();
  report.add_sink(std::move(check));
  return verdict;
}

// Rank 0's outputs, every one locked before the first is created, so that a run refused on one has
// written none (core/output_lock.h). Collective: a refusal stops every rank.
std::unique_ptr<OutputLockSet> lock_outputs(const BenchConfig& c, const World& world) {
  std::string error;
  std::unique_ptr<OutputLockSet> locks;
  if (world.rank() == 0) {
    try {
      locks = std::make_unique<OutputLockSet>(record_output_files(c.outputs));
    } catch (const Error& e) {
      error = e.what();
    }
  }
  if (!world.all(error.empty())) throw UsageError(error);
  return locks;
}

}  // namespace

int run_bench_on(Backend& full, const BenchConfig& c, const World& world, std::vector<ResultRecord>* collected) {
  const std::optional<double> min_busbw = min_busbw_from_environment();
  std::unique_ptr<Backend> sub;
  if (!c.sweep.group.empty()) sub = full.split(c.sweep.group);
  if (c.sweep.split) sub = full.split(split_members(*c.sweep.split, full.nranks(), world));
  Backend& comm = sub ? *sub : full;
  nlohmann::json config = bench_config_json(c);
  if (c.sweep.split) {
    // Every group that ran at once, as ranks. The table's rows carry rank 0's group with the time over all of
    // them (nccl-tests reduces the time over MPI_COMM_WORLD, common.cu); each group's own records follow.
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : split_groups(*c.sweep.split, world.size()))
      groups.push_back(ranks_of(g, full.nranks() / world.size()));
    config["split_groups"] = std::move(groups);
  }
  const std::unique_ptr<OutputLockSet> locks = lock_outputs(c, world);  // held until the writers are done
  ReportSession report(world, full, c.outputs.json_path, c.outputs.csv_path, config, collected);
  const bool table = world.rank() == 0 && !wants_benchmark_display(c.measure.benchmark_args);
  if (table) print_bench_preamble(std::cout, preamble_of(c, full, comm, report));
  if (table) {
    report.add_sink(std::make_unique<ConsoleTable>(
        std::cout, ConsoleStyle{c.nccl_tests_program, min_busbw, c.measure.cputime, c.measure.timestamps}));
  }
  const MinBusBwCheck* verdict = add_outputs(report, c, full, world, min_busbw);
  const bool gpu = full.kind() == BackendKind::kNccl;
  const auto free_now = [&] { return world.min_u64(full.nlocal() ? full.free_memory_bytes() : UINT64_MAX); };
  const std::uint64_t free_before = c.memory_report ? free_now() : 0;
  const std::vector<Point> points = plan_points(c.sweep);
  SweepSummary summary;
  // -N: the sweep again and again; 0 = until interrupted (each record is written as it is measured).
  for (int cycle = 0; (c.cycles == 0 || cycle < c.cycles) && summary.interrupted_by == 0; ++cycle) {
    const SweepSummary s = run_sweep(comm, world, c.measure, c.sweep, points, report.sink());
    summary.records += s.records;
    summary.errors += s.errors;
    summary.wrong += s.wrong;
    summary.interrupted_by = s.interrupted_by;
  }
  report.finish();
  if (c.memory_report) {
    const std::uint64_t free_after = free_now();
    if (world.rank() == 0) {
      print_bench_memory(std::cout, gpu, free_before, buffer_bytes(c, comm.nranks()),
                         free_before > free_after ? free_before - free_after : 0);
    }
  }
  if (summary.interrupted_by != 0) return interrupted_status(summary, c, world);
  require_measured(summary, points.size(), c.measure);
  const bool low = world.max(verdict && verdict->failed() ? 1.0 : 0.0) > 0;  // rank 0's verdict for every rank
  return exit_status(summary, low, !c.nccl_tests_program.empty());
}

}  // namespace pipebench
