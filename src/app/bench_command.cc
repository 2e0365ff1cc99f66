// SPDX-License-Identifier: Apache-2.0
// `pipebench bench`.
#include "app/bench_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/gpu_options.h"
#include "app/nccl_tests_mode.h"
#include "app/plan_bench.h"
#include "app/report_session.h"
#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "collectives/pair.h"
#include "collectives/registry.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/output_lock.h"
#include "core/sizes.h"
#include "core/split_expr.h"
#include "core/units.h"
#include "core/word_lists.h"
#include "harness/benchmark_flags.h"
#include "harness/interrupt.h"
#include "harness/point_runner.h"
#include "launch/gpu_assignment.h"
#include "report/bench_notices.h"
#include "report/bench_preamble.h"
#include "report/console_table.h"
#include "report/csv_writer.h"
#include "report/jsonl_writer.h"
#include "report/nccl_tests_json_writer.h"
#include "report/nccl_tests_text.h"
#include "report/prometheus_writer.h"
#include "report/rank_directory.h"
#include "report/results_json.h"
#include "report/system_info.h"
#include "schedule/schedule_registry.h"

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
  for (const auto& name : c.sweep.ops) OpRegistry::instance().find("--op", name).validate(nranks, c.sweep.params);
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
  std::vector<std::string> dtypes, redops;
  for (auto t : c.sweep.dtypes) dtypes.emplace_back(dtype_name(t));
  for (auto r : c.sweep.redops) redops.emplace_back(redop_name(r));
  return {{"ops", c.sweep.ops},
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

// Builds the backend (or bench --plan's), runs the sweep, writes the requested files.
int BenchCommand::run(const World* wp) {
  const InterruptGuard interrupts;
  const World& world = *wp;
  if (!config_.plan_path.empty()) return run_plan_bench(config_, world);
  BenchConfig c = config_;
  c.backend = backend_for_gpus(c.backend, resolve_backend(c.backend, world), c.gpu_list);
  if (c.backend == BackendKind::kMpi && world.size() == 1) print_single_rank_note(std::cout, c.command_line);
  if (world.rank() == 0) {
    print_bench_notes(std::cerr, c.measure, c.backend == BackendKind::kNccl, c.threads, c.gpus_per_process,
                      c.parallel_init);
  }
  // nccl-tests has procs x -t x -g ranks; here one thread drives them all.
  if (c.backend == BackendKind::kNccl) c.gpus_per_process *= c.threads;
  auto backend = make_backend(c.backend, world, c.gpus_per_process, c.gpu_list);
  validate_for_backend(c, *backend, world);
  return run_bench_on(*backend, c, world);
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
    link_class = report.placement()->class_of(ranks);
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

// -J, --jsonl and --prometheus (rank 0), and the NCCL_TESTS_MIN_BW verdict, which rank 0 returns. Collective:
// a path that cannot be written stops every rank before anything is measured (UsageError).
MinBusBwCheck* add_outputs(ReportSession& report, const BenchConfig& c, const Backend& full, const World& world,
                           std::optional<double> min_busbw) {
  std::string error;
  MinBusBwCheck* verdict = nullptr;
  if (world.rank() == 0) {
    try {
      if (!c.outputs.nccl_tests_json_path.empty()) {
        report.add_sink(std::make_unique<NcclTestsJsonWriter>(
            c.outputs.nccl_tests_json_path, nccl_tests_json_head(c, full, report.system(), world), min_busbw));
      }
      if (!c.outputs.jsonl_path.empty()) {
        report.add_sink(std::make_unique<JsonlWriter>(c.outputs.jsonl_path, RankDirectory(report.system()["devices"])));
      }
      if (!c.outputs.prometheus_path.empty()) {
        report.add_sink(
            std::make_unique<PrometheusWriter>(c.outputs.prometheus_path, RankDirectory(report.system()["devices"])));
      }
    } catch (const Error& e) {
      error = e.what();
    }
    auto check = std::make_unique<MinBusBwCheck>(min_busbw);
    verdict = check.get();
    report.add_sink(std::move(check));
  }
  if (!world.all(error.empty())) throw UsageError(error);
  return verdict;
}

// Rank 0's outputs, every one locked before the first is created, so that a run refused on one has
// written none (core/output_lock.h). Collective: a refusal stops every rank.
std::unique_ptr<OutputLockSet> lock_outputs(const BenchConfig& c, const World& world) {
  std::string error;
  std::unique_ptr<OutputLockSet> locks;
  if (world.rank() == 0) {
    try {
      const BenchOutputs& o = c.outputs;
      locks = std::make_unique<OutputLockSet>(std::vector<FileArg>{{"--json", o.json_path},
                                                                   {"--csv", o.csv_path},
                                                                   {"-J", o.nccl_tests_json_path},
                                                                   {"--jsonl", o.jsonl_path},
                                                                   {"--prometheus", o.prometheus_path}});
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

namespace {

// The flags as typed; finish() turns them into the BenchConfig.
struct BenchText {
  std::string minbytes = "32M", maxbytes = "32M", stepbytes = "1M", sizes, ops = "all_reduce", dtypes = "float",
              redops = "sum", backend = "auto", pairs, group, alloc, split, nccl_tests_name, gpus;
  std::uint64_t factor = 1;
  int average = 3;        // -a
  bool per_iter = false;  // -I
};

void add_sweep_options(CLI::App& sub, BenchText& t) {
  sub.add_option("-b,--minbytes", t.minbytes, "smallest size (K/M/G suffixes, binary)")->capture_default_str();
  sub.add_option("-e,--maxbytes", t.maxbytes, "largest size")->capture_default_str();
  sub.add_option("-f,--stepfactor", t.factor, "multiply the size by this (integer); 1 = add -i")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  sub.add_option("-i,--stepbytes", t.stepbytes, "add this to the size when -f is 1")->capture_default_str();
  sub.add_option("--sizes", t.sizes, "explicit comma-separated sizes instead of -b/-e/-f/-i");
  sub.add_option("--op", t.ops, "comma-separated ops, or 'all': " + OpRegistry::instance().name_list())
      ->capture_default_str();
  sub.add_option("-d,--datatype", t.dtypes, "comma-separated types, or 'all'")->capture_default_str();
  sub.add_option("-o,--op_type,--redop", t.redops, "comma-separated reductions: sum, prod, max, min")
      ->capture_default_str();
}

void add_run_options(CLI::App& sub, BenchConfig& c) {
  sub.add_option("-r,--root", c.sweep.params.root, "root rank of broadcast, reduce, gather and scatter")
      ->check(checks::non_negative(1 << 20));
  sub.add_option("-g,--ngpus", c.gpus_per_process, "GPUs driven by each process")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub.add_option("-n,--iters", c.measure.iters, "ops per timed batch")
      ->check(CLI::Range(1, 1 << 24))
      ->capture_default_str();
  sub.add_option("-w,--warmup_iters", c.measure.warmup, "untimed ops before each point")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();
  sub.add_option("--reps", c.measure.reps, "timed batches per point (statistics are over these)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub.add_option("-c,--check", c.measure.checks, "data-check runs per point; 0 turns the check off")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  sub.add_option("-G,--cudagraph", c.measure.graph, "capture each batch in a CUDA graph (0/1)")->capture_default_str();
  add_timeout_option(sub, c.measure.timeout_s);
}

// The rest of nccl-tests' flags, with its letters and long names (shared reference: nccl-tests §1.2).
void add_nccl_tests_options(CLI::App& sub, BenchText& t, BenchConfig& c) {
  sub.add_option("-t,--nthreads", c.threads, "threads per process (nccl-tests); here one thread drives -t x -g GPUs")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub.add_option("-m,--agg_iters", c.measure.agg, "ops aggregated in one group call per iteration")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  sub.add_option("-N,--run_cycles", c.cycles, "run the sweep this many times; 0 = until interrupted")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  sub.add_option("-a,--average", t.average, "a batch's time over ranks: 0 rank 0, 1 mean, 2 min, 3 max")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  sub.add_option("-z,--blocking", c.measure.blocking,
                 "0 async; 1 sync and barrier after each op; 2 sync after each op; 3 sync and barrier after each "
                 "iteration, barrier untimed")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  sub.add_option("-C,--report_cputime", c.measure.cputime, "report the host time spent issuing the ops (0/1)");
  sub.add_option("-R,--local_register", c.measure.buffers.registration,
                 "register buffers: 0 no, 1 ncclCommRegister, 2 symmetric ncclCommWindowRegister")
      ->check(CLI::Range(0, 2));
  sub.add_option("-u,--unalign", c.measure.unalign_elems, "shift send and receive buffers by this many elements")
      ->check(CLI::Range(0, 1 << 20));
  sub.add_option("-S,--report_timestamps", c.measure.timestamps, "a UTC timestamp per row (0/1)");
  sub.add_option("-M,--memory", c.memory_report, "report memory use at the end (0/1)");
  sub.add_option("-p,--parallel_init", c.parallel_init, "accepted for nccl-tests; see the note it prints (0/1)");
  sub.add_option("-I,--per_iter_timing", t.per_iter, "one sample per iteration: --reps becomes -n, -n becomes 1 (0/1)");
  sub.add_option("-K,--per_iter_skip", c.measure.per_iter_skip, "leave the first K samples out of the statistics")
      ->check(CLI::Range(0, 1 << 24));
  sub.add_option("--alloc", t.alloc, "buffer memory: cuda (cudaMalloc) or ncclmem (ncclMemAlloc; the default)");
  sub.add_option("--split", t.split,
                 "run concurrent groups of processes, nccl-tests syntax: 'MOD 2', 'DIV 8', 'AND 0x7', '%2' "
                 "(default: $NCCL_TESTS_SPLIT_MASK, $NCCL_TESTS_SPLIT)");
}

void add_placement_options(CLI::App& sub, BenchText& t, BenchConfig& c) {
  sub.add_option("--backend", t.backend, "nccl, mpi or auto (nccl when a GPU is visible)")->capture_default_str();
  sub.add_option("--gpus", t.gpus, kGpusOptionHelp);
  sub.add_option("--pairs", t.pairs, "pair op: transfers SRC:DST,SRC:DST,...");
  sub.add_flag("--bidir", c.sweep.params.bidirectional, "pair op: also send every pair's reverse");
  sub.add_option("--group", t.group, "run the ops on a sub-communicator of these ranks (e.g. 0,3)");
  sub.add_option("--plan", c.plan_path, "time the distinct messages of this plan (pipebench plan --json) instead");
  sub.add_option("--schedule", c.plan_schedule, "with --plan: " + schedule_flag_help());
  sub.add_option("--json", c.outputs.json_path, "write the results JSON here (record by record)");
  sub.add_option("--csv", c.outputs.csv_path, "write one CSV line per record here");
  sub.add_option("-J,--output_file", c.outputs.nccl_tests_json_path,
                 "write nccl-tests' JSON (version 3) here (one --op)");
  sub.add_option("--jsonl", c.outputs.jsonl_path, "append one JSON object per record to this file (JSON Lines)");
  sub.add_option("--prometheus", c.outputs.prometheus_path,
                 "write the records as a node-exporter text file here (replaced after every record)");
  // Set by main when started as an nccl-tests binary (all_reduce_perf): not in the help.
  sub.add_option("--nccl-tests-name", t.nccl_tests_name)->group("");
  sub.add_flag("--quiet", c.measure.quiet, "no progress lines on stderr");
}

// -b/-e/-f/-i or --sizes; --plan takes its sizes from the plan instead.
void finish_sizes(const CLI::App& sub, const BenchText& t, BenchConfig& c) {
  const bool sweep_flags = sub.count("-b") || sub.count("-e") || sub.count("-f") || sub.count("-i");
  if (!c.plan_path.empty() &&
      (sweep_flags || !t.sizes.empty() || sub.count("--op") || !t.pairs.empty() || !t.group.empty())) {
    throw UsageError(
        "--plan takes its sizes, ops and groups from the plan: it cannot be combined with "
        "-b/-e/-f/-i/--sizes/--op/--pairs/--group");
  }
  if (c.plan_path.empty() && !c.plan_schedule.empty()) throw UsageError("--schedule applies only with --plan");
  if (sub.count("--sizes")) {  // given, even as "": an empty list is bad input, never the default sweep
    if (sweep_flags) throw UsageError("--sizes cannot be combined with -b/-e/-f/-i");
    c.sweep.sizes_bytes = parse_size_list("--sizes", t.sizes);
  } else {
    const auto minb = parse_size_bytes("-b", t.minbytes);
    const auto maxb = parse_size_bytes("-e", t.maxbytes);
    const auto step = t.factor > 1 ? 0 : parse_size_bytes("-i", t.stepbytes);
    c.sweep.sizes_bytes = sweep_sizes(minb, maxb, t.factor, step);
    c.step_factor = t.factor;
    c.step_bytes = step;
  }
}

// An entry given twice would measure each of its points twice, and the records would count double.
void require_once(const std::string& flag, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (!seen.insert(n).second)
      throw UsageError(flag + ": " + n + " given twice (each is measured once: give it once)");
  }
}

void finish_types(const BenchText& t, BenchConfig& c) {
  c.sweep.ops.clear();
  for (const auto& name : split_list(t.ops)) {
    if (name != "all") {
      (void)OpRegistry::instance().find("--op", name);
      c.sweep.ops.push_back(name);
      continue;
    }
    for (const auto& n : OpRegistry::instance().names()) {
      if (!OpRegistry::instance().find("--op", n).is_transfer() || !t.pairs.empty()) c.sweep.ops.push_back(n);
    }
  }
  if (c.sweep.ops.empty())
    throw UsageError("--op '" + t.ops + "': no op named (one of " + OpRegistry::instance().name_list() + ", or all)");
  c.sweep.dtypes.clear();
  if (split_list(t.dtypes).empty()) throw UsageError("-d '" + t.dtypes + "': no data type named");
  for (const auto& name : split_list(t.dtypes)) {
    if (name == "all") {
      c.sweep.dtypes = all_dtypes();
      break;
    }
    c.sweep.dtypes.push_back(parse_dtype("-d", name));
  }
  c.sweep.redops.clear();
  for (const auto& name : split_list(t.redops)) c.sweep.redops.push_back(parse_redop("-o", name));
  if (c.sweep.redops.empty()) throw UsageError("-o '" + t.redops + "': no reduction named");
  std::vector<std::string> names;
  for (const auto& name : c.sweep.ops) names.emplace_back(OpRegistry::instance().find("--op", name).name());
  require_once("--op", names);
  names.clear();
  for (const DType d : c.sweep.dtypes) names.emplace_back(dtype_name(d));
  require_once("-d", names);
  names.clear();
  for (const RedOp r : c.sweep.redops) names.emplace_back(redop_name(r));
  require_once("-o", names);
}

void finish_placement(const BenchText& t, BenchConfig& c) {
  c.backend = parse_backend_kind("--backend", t.backend);
  c.gpu_list = parse_gpus_option(t.gpus, c.backend);
  if (!t.pairs.empty()) c.sweep.params.pairs = parse_pairs("--pairs", t.pairs);
  if (!t.group.empty()) c.sweep.group = parse_rank_list("--group", t.group);
  if (c.measure.graph && c.backend == BackendKind::kMpi) throw UsageError("-G: CUDA graphs need the nccl backend");
  const auto needs_pairs = std::find_if(c.sweep.ops.begin(), c.sweep.ops.end(), [](const std::string& name) {
    return OpRegistry::instance().find("--op", name).is_transfer();
  });
  if (needs_pairs != c.sweep.ops.end() && c.sweep.params.pairs.empty()) {
    throw UsageError("--op " + *needs_pairs + " needs --pairs SRC:DST[,SRC:DST...]");
  }
  if (needs_pairs == c.sweep.ops.end() && (!c.sweep.params.pairs.empty() || c.sweep.params.bidirectional)) {
    throw UsageError(std::string(c.sweep.params.bidirectional ? "--bidir" : "--pairs") + " applies only to --op " +
                     std::string(OpRegistry::instance().transfer_op().name()));
  }
}

// nccl-tests reads the mask first, then the expression; the flag comes before both.
std::optional<SplitRule> split_rule(const BenchText& t) {
  if (!t.split.empty()) return parse_split_expr("--split", t.split);
  if (const char* mask = std::getenv("NCCL_TESTS_SPLIT_MASK"); mask && *mask) {
    return parse_split_mask("NCCL_TESTS_SPLIT_MASK", mask);
  }
  if (const char* expr = std::getenv("NCCL_TESTS_SPLIT"); expr && *expr) {
    return parse_split_expr("NCCL_TESTS_SPLIT", expr);
  }
  return std::nullopt;
}

void finish_nccl_tests(const CLI::App& sub, const BenchText& t, BenchConfig& c) {
  c.measure.rank_stat = static_cast<RankStat>(t.average);
  c.per_iter_timing = t.per_iter;
  if (t.per_iter) {
    // nccl-tests -I times every iteration; here every sample is one batch, so one iteration a batch.
    if (sub.count("--reps")) throw UsageError("-I 1 takes one sample per iteration of -n; drop --reps");
    c.measure.reps = c.measure.iters;
    c.measure.iters = 1;
  }
  if (c.measure.per_iter_skip >= c.measure.reps) {
    throw UsageError("-K " + std::to_string(c.measure.per_iter_skip) + ": must leave at least one of the " +
                     std::to_string(c.measure.reps) + " samples");
  }
  if (c.measure.blocking > 0 && c.measure.graph) {
    throw UsageError("-z " + std::to_string(c.measure.blocking) +
                     ": a CUDA graph (-G) cannot hold the synchronisation");
  }
  if (t.alloc == "cuda") {
    c.measure.buffers.alloc = BufferAlloc::kCuda;
  } else if (t.alloc == "ncclmem") {
    c.measure.buffers.alloc = BufferAlloc::kNcclMem;
  } else if (!t.alloc.empty()) {
    throw UsageError("--alloc: unknown allocator '" + t.alloc + "' (one of: cuda, ncclmem)");
  }
  c.sweep.split = split_rule(t);
  if (c.sweep.split && !c.sweep.group.empty()) throw UsageError("--split cannot be combined with --group");
  if (c.sweep.split && !c.plan_path.empty()) throw UsageError("--split cannot be combined with --plan");
}

// Started as an nccl-tests binary: its name and defaults; -J holds one op, as nccl-tests' JSON does.
void finish_outputs(const CLI::App& sub, const BenchText& t, BenchConfig& c) {
  if (!c.outputs.nccl_tests_json_path.empty() && c.sweep.ops.size() != 1) {
    throw UsageError("-J " + c.outputs.nccl_tests_json_path + ": nccl-tests' JSON holds one op, but --op names " +
                     std::to_string(c.sweep.ops.size()) + " (give one --op, or use --json)");
  }
  if (t.nccl_tests_name.empty()) return;
  if (nccl_tests_binary_op(t.nccl_tests_name) != c.sweep.ops.front() || c.sweep.ops.size() != 1) {
    throw UsageError("--nccl-tests-name " + t.nccl_tests_name + ": not the nccl-tests binary of --op " + t.ops);
  }
  if (!c.plan_path.empty()) throw UsageError(t.nccl_tests_name + ": --plan is a pipebench bench flag");
  c.nccl_tests_program = t.nccl_tests_name;
  c.sweep.nccl_tests_points = true;
  apply_nccl_tests_defaults(c, [&sub](const char* flag) { return sub.count(flag) > 0; });
}

}  // namespace

struct BenchCommand::Text : BenchText {};

BenchCommand::BenchCommand() : text_(std::make_unique<Text>()) {}
BenchCommand::~BenchCommand() = default;

std::string BenchCommand::summary() const { return "nccl-tests style sweep with a bus-bandwidth table"; }

void BenchCommand::add_options(CLI::App& sub) {
  add_sweep_options(sub, *text_);
  add_run_options(sub, config_);
  add_nccl_tests_options(sub, *text_, config_);
  add_placement_options(sub, *text_, config_);
  sub.footer(
      "Google Benchmark flags pass through: each point is a benchmark named op/dtype/redop/bytes/placement\n"
      "(e.g. all_reduce/float/sum/1048576/out-of-place). --benchmark_filter=REGEX measures the points it matches,\n"
      "--benchmark_format=console|json|csv prints Google Benchmark's output instead of the table,\n"
      "--benchmark_out=FILE --benchmark_out_format=json|csv|console writes it to a file (rank 0).");
}

void BenchCommand::finish(const CLI::App& sub, const CommandExtras& extras) {
  finish_sizes(sub, *text_, config_);
  finish_types(*text_, config_);
  finish_placement(*text_, config_);
  finish_nccl_tests(sub, *text_, config_);
  finish_outputs(sub, *text_, config_);
  check_benchmark_flags(extras.benchmark_args);
  require_distinct_files({{"--plan", config_.plan_path}},
                         {{"--json", config_.outputs.json_path},
                          {"--csv", config_.outputs.csv_path},
                          {"-J", config_.outputs.nccl_tests_json_path},
                          {"--jsonl", config_.outputs.jsonl_path},
                          {"--prometheus", config_.outputs.prometheus_path},
                          {"--benchmark_out", parse_benchmark_flags(extras.benchmark_args).out_path}});
  config_.measure.benchmark_args = extras.benchmark_args;
}

void BenchCommand::check_launch(bool tcp_rendezvous) const {
  require_backend_for_launch(config_.backend, tcp_rendezvous);
}

void BenchCommand::before_world(const std::vector<std::string>& args) {
  config_.command_line = {"pipebench"};
  config_.command_line.insert(config_.command_line.end(), args.begin(), args.end());
  if (!config_.nccl_tests_program.empty()) config_.command_line = nccl_tests_user_args(args);
}

}  // namespace pipebench
