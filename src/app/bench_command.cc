// SPDX-License-Identifier: Apache-2.0
// `pipebench bench`.
#include "app/bench_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "app/plan_bench.h"
#include "app/report_session.h"
#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "collectives/pair.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/units.h"
#include "core/version.h"
#include "core/word_lists.h"
#include "report/console_table.h"
#include "report/csv_writer.h"
#include "report/results_json.h"
#include "report/system_info.h"

namespace pipebench {
namespace {

// Memory NCCL may still take after initialisation (channel and proxy buffers grow on first use).
constexpr std::uint64_t kNcclReserveBytes = 1ull << 30;

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

}  // namespace

void validate_for_backend(const BenchConfig& c, const Backend& backend, const World& world) {
  for (int g : c.group) {
    if (g >= backend.nranks()) {
      throw UsageError("--group: rank " + std::to_string(g) + " is out of range (ranks are 0.." +
                       std::to_string(backend.nranks() - 1) + ")");
    }
  }
  const int nranks = c.group.empty() ? backend.nranks() : static_cast<int>(c.group.size());
  for (const auto& name : c.ops) OpRegistry::instance().find("--op", name).validate(nranks, c.params);
  if (c.graph && !backend.supports_graphs()) throw UsageError("-G: CUDA graphs need the nccl backend");

  // Refuse before allocating: the largest point's buffers against free memory (min over ranks).
  std::uint64_t need = 0;
  std::string what;
  for (const auto& p : plan_points(c)) {
    const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), nranks, c.params);
    if (s.send_bytes + s.recv_bytes > need) {
      need = s.send_bytes + s.recv_bytes;
      what = std::string(p.op->name()) + " at " + format_size(p.requested_bytes);
    }
  }
  const bool gpu = backend.kind() == BackendKind::kNccl;
  const std::uint64_t reserve = gpu ? kNcclReserveBytes : 0;
  const std::uint64_t free_bytes = world.min_u64(backend.nlocal() ? backend.free_memory_bytes() : UINT64_MAX);
  if (need + reserve > free_bytes) {
    throw UsageError("-e/--sizes: " + what + " needs " + gib(need) + " of buffers per rank, but only " +
                     gib(free_bytes) + " of " + (gpu ? "GPU" : "host") + " memory is free on the fullest rank" +
                     (gpu ? " (" + gib(reserve) + " is kept for NCCL)" : ""));
  }
}

nlohmann::json bench_config_json(const BenchConfig& c) {
  std::vector<std::string> dtypes, redops;
  for (auto t : c.dtypes) dtypes.emplace_back(dtype_name(t));
  for (auto r : c.redops) redops.emplace_back(redop_name(r));
  return {{"ops", c.ops},
          {"sizes_bytes", c.sizes_bytes},
          {"dtypes", dtypes},
          {"redops", redops},
          {"gpus_per_process", c.gpus_per_process},
          {"iters", c.iters},
          {"warmup", c.warmup},
          {"reps", c.reps},
          {"checks", c.checks},
          {"graph", c.graph},
          {"group", c.group},
          {"point_budget_s", c.point_budget_s}};
}

void print_preamble(std::ostream& out, const BenchConfig& c, const Backend& backend, const nlohmann::json& system) {
  out << "# pipebench " << kToolVersion << "  backend " << backend.name();
  for (const auto& [k, v] : backend.versions()) out << "  " << k << " " << v;
  out << "\n# nranks " << backend.nranks() << " (" << system["processes"].get<int>() << " process"
      << (system["processes"].get<int>() == 1 ? "" : "es") << " x " << c.gpus_per_process << " "
      << (backend.kind() == BackendKind::kNccl ? "GPU" : "host rank") << ")  warmup " << c.warmup << "  iters "
      << c.iters << (c.point_budget_s > 0 ? " (max; fewer for slow points)" : "") << "  reps " << c.reps
      << "  validation " << c.checks << "  graph " << (c.graph ? 1 : 0) << "\n";
  if (!c.group.empty()) {
    out << "# group";
    for (int g : c.group) out << " " << g;
    out << " (the ops run on these ranks only)\n";
  }
  if (!c.params.pairs.empty()) {
    out << "# pairs";
    for (const auto& p : c.params.pairs) out << " " << p.src << ":" << p.dst;
    out << (c.params.bidirectional ? " (each in both directions at once)" : " (one way)")
        << "; algbw = busbw = one message's bytes / time\n";
  }
  out << "# time = median over reps of (batch time, slowest rank) / iters\n#\n# Using devices\n";
  for (const auto& d : system["devices"]) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "#  Rank %2d Pid %6ld on %10s device %2d [%s] %s\n", d["rank"].get<int>(),
                  d["pid"].get<long>(), d["host"].get<std::string>().c_str(), d["device"].get<int>(),
                  d["bus_id"].get<std::string>().c_str(), d["model"].get<std::string>().c_str());
    out << buf;
  }
  out.flush();
}

int exit_status(const SweepSummary& s) {
  if (s.wrong > 0) return static_cast<int>(ExitCode::kWrongData);
  if (s.errors > 0) return static_cast<int>(ExitCode::kRuntimeError);
  return static_cast<int>(ExitCode::kOk);
}

int run_bench_command(const BenchConfig& c, const World& world, std::vector<ResultRecord>* collected) {
  if (!c.plan_path.empty()) return run_plan_bench(c, world);
  auto backend = make_backend(c.backend, world, c.gpus_per_process);
  validate_for_backend(c, *backend, world);
  return run_bench_on(*backend, c, world, collected);
}

int run_bench_on(Backend& full, const BenchConfig& c, const World& world, std::vector<ResultRecord>* collected) {
  std::unique_ptr<Backend> sub;
  if (!c.group.empty()) sub = full.split(c.group);
  Backend& comm = sub ? *sub : full;
  ReportSession report(world, full, c.json_path, c.csv_path, bench_config_json(c), collected);
  if (world.rank() == 0 && !wants_benchmark_display(c.benchmark_args)) {
    print_preamble(std::cout, c, full, report.system());
    if (report.classes()) {
      std::vector<int> ranks;
      for (int i = 0; i < comm.nranks(); ++i) ranks.push_back(comm.global_rank(i));
      const std::string cls = report.classes()->class_of(ranks);
      if (!cls.empty()) std::cout << "# link class of these ranks (the worst pair): " << cls << "\n";
    }
    report.add_sink(std::make_unique<ConsoleTable>(std::cout));
  }
  const std::vector<Point> points = plan_points(c);
  const SweepSummary summary = run_sweep(comm, world, c, points, report.sink());
  report.finish();
  require_measured(summary, points.size(), c);
  return exit_status(summary);
}

namespace {

// The flags as typed; finish() turns them into the BenchConfig.
struct BenchText {
  std::string minbytes = "32M", maxbytes = "32M", stepbytes = "1M", sizes, ops = "all_reduce", dtypes = "float",
              redops = "sum", backend = "auto", pairs, group;
  std::uint64_t factor = 1;
};

std::string op_names() {
  std::string s;
  for (const auto& n : OpRegistry::instance().names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void add_sweep_options(CLI::App& sub, BenchText& t) {
  sub.add_option("-b,--minbytes", t.minbytes, "smallest size (K/M/G suffixes, binary)")->capture_default_str();
  sub.add_option("-e,--maxbytes", t.maxbytes, "largest size")->capture_default_str();
  sub.add_option("-f,--stepfactor", t.factor, "multiply the size by this (integer); 1 = add -i")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  sub.add_option("-i,--stepbytes", t.stepbytes, "add this to the size when -f is 1")->capture_default_str();
  sub.add_option("--sizes", t.sizes, "explicit comma-separated sizes instead of -b/-e/-f/-i");
  sub.add_option("--op", t.ops, "comma-separated ops, or 'all': " + op_names())->capture_default_str();
  sub.add_option("-d,--datatype", t.dtypes, "comma-separated types, or 'all'")->capture_default_str();
  sub.add_option("-o,--op_type,--redop", t.redops, "comma-separated reductions: sum, prod, max, min")
      ->capture_default_str();
}

void add_run_options(CLI::App& sub, BenchConfig& c) {
  sub.add_option("-r,--root", c.params.root, "root rank of broadcast")->check(checks::non_negative(1 << 20));
  sub.add_option("-g,--ngpus", c.gpus_per_process, "GPUs driven by each process")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub.add_option("-n,--iters", c.iters, "ops per timed batch")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  sub.add_option("-w,--warmup_iters", c.warmup, "untimed ops before each point")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();
  sub.add_option("--reps", c.reps, "timed batches per point (statistics are over these)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  sub.add_option("-c,--check", c.checks, "data-check runs per point; 0 turns the check off")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  sub.add_option("-G,--cudagraph", c.graph, "capture each batch in a CUDA graph (0/1)")->capture_default_str();
  sub.add_option("-T,--timeout", c.timeout_s,
                 "seconds a point may take before the job is aborted (default: from the point's size, see README; "
                 "0 = none)")
      ->check(checks::non_negative(checks::kMaxTimeoutSeconds));
}

void add_placement_options(CLI::App& sub, BenchText& t, BenchConfig& c) {
  sub.add_option("--backend", t.backend, "nccl, mpi or auto (nccl when a GPU is visible)")->capture_default_str();
  sub.add_option("--pairs", t.pairs, "pair op: transfers SRC:DST,SRC:DST,...");
  sub.add_flag("--bidir", c.params.bidirectional, "pair op: also send every pair's reverse");
  sub.add_option("--group", t.group, "run the ops on a sub-communicator of these ranks (e.g. 0,3)");
  sub.add_option("--plan", c.plan_path, "time the distinct messages of this plan (pipebench plan --json) instead");
  sub.add_option("--schedule", c.plan_schedule, "with --plan: only this schedule (1f1b, interleaved, interleaved:v4)");
  sub.add_option("--json", c.json_path, "write the results JSON here (record by record)");
  sub.add_option("--csv", c.csv_path, "write one CSV line per record here");
  sub.add_flag("--quiet", c.quiet, "no progress lines on stderr");
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
    c.sizes_bytes = parse_size_list("--sizes", t.sizes);
  } else {
    const auto minb = parse_size_bytes("-b", t.minbytes);
    const auto maxb = parse_size_bytes("-e", t.maxbytes);
    const auto step = t.factor > 1 ? 0 : parse_size_bytes("-i", t.stepbytes);
    c.sizes_bytes = sweep_sizes(minb, maxb, t.factor, step);
  }
}

void finish_types(const BenchText& t, BenchConfig& c) {
  c.ops.clear();
  for (const auto& name : split_list(t.ops)) {
    if (name != "all") {
      (void)OpRegistry::instance().find("--op", name);
      c.ops.push_back(name);
      continue;
    }
    for (const auto& n : OpRegistry::instance().names()) {
      if (!OpRegistry::instance().find("--op", n).needs_pairs() || !t.pairs.empty()) c.ops.push_back(n);
    }
  }
  if (c.ops.empty()) throw UsageError("--op '" + t.ops + "': no op named (one of " + op_names() + ", or all)");
  c.dtypes.clear();
  if (split_list(t.dtypes).empty()) throw UsageError("-d '" + t.dtypes + "': no data type named");
  for (const auto& name : split_list(t.dtypes)) {
    if (name == "all") {
      c.dtypes = all_dtypes();
      break;
    }
    c.dtypes.push_back(parse_dtype("-d", name));
  }
  c.redops.clear();
  for (const auto& name : split_list(t.redops)) c.redops.push_back(parse_redop("-o", name));
  if (c.redops.empty()) throw UsageError("-o '" + t.redops + "': no reduction named");
}

void finish_placement(const BenchText& t, BenchConfig& c) {
  c.backend = parse_backend_kind("--backend", t.backend);
  if (!t.pairs.empty()) c.params.pairs = parse_pairs("--pairs", t.pairs);
  if (!t.group.empty()) c.group = parse_rank_list("--group", t.group);
  if (c.graph && c.backend == BackendKind::kMpi) throw UsageError("-G: CUDA graphs need the nccl backend");
  const auto needs_pairs = std::find_if(c.ops.begin(), c.ops.end(), [](const std::string& name) {
    return OpRegistry::instance().find("--op", name).needs_pairs();
  });
  if (needs_pairs != c.ops.end() && c.params.pairs.empty()) {
    throw UsageError("--op " + *needs_pairs + " needs --pairs SRC:DST[,SRC:DST...]");
  }
  if (needs_pairs == c.ops.end() && (!c.params.pairs.empty() || c.params.bidirectional)) {
    throw UsageError(std::string(c.params.bidirectional ? "--bidir" : "--pairs") + " applies only to --op pair");
  }
}

}  // namespace

struct BenchCommand::Text : BenchText {};

BenchCommand::BenchCommand() : text_(std::make_unique<Text>()) {}
BenchCommand::~BenchCommand() = default;

std::string BenchCommand::summary() const { return "nccl-tests style sweep with a bus-bandwidth table"; }

void BenchCommand::add_options(CLI::App& sub) {
  add_sweep_options(sub, *text_);
  add_run_options(sub, config_);
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
  config_.benchmark_args = extras.benchmark_args;
}

int BenchCommand::run(const World* world) { return run_bench_command(config_, *world); }

std::unique_ptr<Subcommand> make_bench_command() { return std::make_unique<BenchCommand>(); }

}  // namespace pipebench
