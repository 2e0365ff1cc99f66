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
#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "collectives/pair.h"
#include "collectives/registry.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/split_expr.h"
#include "core/units.h"
#include "core/word_lists.h"
#include "harness/benchmark_flags.h"
#include "harness/interrupt.h"
#include "launch/gpu_assignment.h"
#include "report/bench_notices.h"
#include "report/bench_preamble.h"
#include "report/nccl_tests_text.h"
#include "schedule/schedule_registry.h"
#include "service/bench_sweep.h"
#include "service/nccl_tests_mode.h"
#include "service/plan_bench.h"
#include "service/record_outputs.h"

namespace pipebench {

// Builds the backend (or bench --plan's), runs the sweep, writes the requested files.
int BenchCommand::run(const World* wp) {
  const InterruptGuard interrupts;
  const World& world = *wp;
  BenchConfig c = config_;
  c.plan_pass_costs = !c.plan_path.empty();
  if (!c.plan_path.empty()) return run_plan_bench(c, world);
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
  add_record_output_options(sub, c.outputs, true);
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
      c.sweep.ops.push_back(&OpRegistry::instance().find("--op", name));
      continue;
    }
    for (const auto& n : OpRegistry::instance().names()) {
      const Op& op = OpRegistry::instance().find("--op", n);
      if (!op.traits().is_transfer || !t.pairs.empty()) c.sweep.ops.push_back(&op);
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
  for (const Op* op : c.sweep.ops) names.emplace_back(op->name());
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
  const auto needs_pairs =
      std::find_if(c.sweep.ops.begin(), c.sweep.ops.end(), [](const Op* op) { return op->traits().is_transfer; });
  if (needs_pairs != c.sweep.ops.end() && c.sweep.params.pairs.empty()) {
    throw UsageError("--op " + std::string((*needs_pairs)->name()) + " needs --pairs SRC:DST[,SRC:DST...]");
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
  if (!c.outputs.nccl_tests_json_path.empty() && !c.plan_path.empty()) {
    throw UsageError("-J " + c.outputs.nccl_tests_json_path +
                     ": nccl-tests' JSON holds one op's sweep, not a plan's messages (use --json)");
  }
  if (!c.outputs.nccl_tests_json_path.empty() && c.sweep.ops.size() != 1) {
    throw UsageError("-J " + c.outputs.nccl_tests_json_path + ": nccl-tests' JSON holds one op, but --op names " +
                     std::to_string(c.sweep.ops.size()) + " (give one --op, or use --json)");
  }
  if (t.nccl_tests_name.empty()) return;
  if (nccl_tests_binary_op(t.nccl_tests_name) != c.sweep.ops.front()->name() || c.sweep.ops.size() != 1) {
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
  std::vector<FileArg> outputs = record_output_files(config_.outputs);
  outputs.push_back({"--benchmark_out", parse_benchmark_flags(extras.benchmark_args).out_path});
  require_distinct_files({{"--plan", config_.plan_path}}, outputs);
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
