// SPDX-License-Identifier: Apache-2.0
// CLI11 definitions of every subcommand; flag letters follow nccl-tests where they overlap.
#include "cli/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

#include "collectives/pair.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/sizes.h"
#include "core/units.h"
#include "core/version.h"

namespace pipebench {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  if (!text.empty() && text.back() == ',') out.emplace_back();
  return out;
}

struct BenchText {
  std::string minbytes = "32M", maxbytes = "32M", stepbytes = "1M", sizes, ops = "all_reduce",
              dtypes = "float", redops = "sum", backend = "auto", pairs, group;
  std::uint64_t factor = 1;
};

void add_bench_options(CLI::App& sub, BenchText& t, BenchConfig& c) {
  sub.add_option("-b,--minbytes", t.minbytes, "smallest size (K/M/G suffixes, binary)")->capture_default_str();
  sub.add_option("-e,--maxbytes", t.maxbytes, "largest size")->capture_default_str();
  sub.add_option("-f,--stepfactor", t.factor, "multiply the size by this (integer); 1 = add -i")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20))
      ->capture_default_str();
  sub.add_option("-i,--stepbytes", t.stepbytes, "add this to the size when -f is 1")->capture_default_str();
  sub.add_option("--sizes", t.sizes, "explicit comma-separated sizes instead of -b/-e/-f/-i");
  sub.add_option("--op", t.ops, "comma-separated ops, or 'all': " + [] {
    std::string s;
    for (const auto& n : OpRegistry::instance().names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }())->capture_default_str();
  sub.add_option("-d,--datatype", t.dtypes, "comma-separated types, or 'all'")->capture_default_str();
  sub.add_option("-o,--op_type,--redop", t.redops, "comma-separated reductions: sum, prod, max, min")
      ->capture_default_str();
  sub.add_option("-r,--root", c.params.root, "root rank of broadcast")->check(CLI::NonNegativeNumber);
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
  sub.add_option("-T,--timeout", c.timeout_s, "seconds a point may take before the job is aborted; 0 = none")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--backend", t.backend, "nccl, mpi or auto (nccl when a GPU is visible)")->capture_default_str();
  sub.add_option("--pairs", t.pairs, "pair op: transfers SRC:DST,SRC:DST,...");
  sub.add_flag("--bidir", c.params.bidirectional, "pair op: also send every pair's reverse");
  sub.add_option("--group", t.group, "run the ops on a sub-communicator of these ranks (e.g. 0,3)");
  sub.add_option("--plan", c.plan_path, "time the distinct messages of this plan (pipebench plan --json) instead");
  sub.add_option("--schedule", c.plan_schedule, "with --plan: only this schedule (1f1b, interleaved, interleaved:v4)");
  sub.add_option("--json", c.json_path, "write the results JSON here (record by record)");
  sub.add_option("--csv", c.csv_path, "write one CSV line per record here");
}

BenchConfig finish_bench(const CLI::App& sub, const BenchText& t, BenchConfig c) {
  const bool sweep_flags = sub.count("-b") || sub.count("-e") || sub.count("-f") || sub.count("-i");
  if (!c.plan_path.empty() && (sweep_flags || !t.sizes.empty() || sub.count("--op") || !t.pairs.empty() || !t.group.empty())) {
    throw UsageError("--plan takes its sizes, ops and groups from the plan: it cannot be combined with "
                     "-b/-e/-f/-i/--sizes/--op/--pairs/--group");
  }
  if (c.plan_path.empty() && !c.plan_schedule.empty()) throw UsageError("--schedule applies only with --plan");
  if (!t.sizes.empty()) {
    if (sweep_flags) throw UsageError("--sizes cannot be combined with -b/-e/-f/-i");
    c.sizes_bytes = parse_size_list("--sizes", t.sizes);
  } else {
    const auto minb = parse_size_bytes("-b", t.minbytes);
    const auto maxb = parse_size_bytes("-e", t.maxbytes);
    const auto step = t.factor > 1 ? 0 : parse_size_bytes("-i", t.stepbytes);
    c.sizes_bytes = sweep_sizes(minb, maxb, t.factor, step);
  }
  c.ops.clear();
  for (const auto& name : split_list(t.ops)) {
    if (name == "all") {
      for (const auto& n : OpRegistry::instance().names()) {
        if (n != "pair" || !t.pairs.empty()) c.ops.push_back(n);
      }
      continue;
    }
    (void)OpRegistry::instance().find("--op", name);
    c.ops.push_back(name);
  }
  c.dtypes.clear();
  for (const auto& name : split_list(t.dtypes)) {
    if (name == "all") {
      c.dtypes = all_dtypes();
      break;
    }
    c.dtypes.push_back(parse_dtype("-d", name));
  }
  c.redops.clear();
  for (const auto& name : split_list(t.redops)) c.redops.push_back(parse_redop("-o", name));
  c.backend = parse_backend_kind("--backend", t.backend);
  if (!t.pairs.empty()) c.params.pairs = parse_pairs("--pairs", t.pairs);
  if (!t.group.empty()) c.group = parse_rank_list("--group", t.group);
  if (c.graph && c.backend == BackendKind::kMpi) throw UsageError("-G: CUDA graphs need the nccl backend");
  const bool has_pair = std::find(c.ops.begin(), c.ops.end(), "pair") != c.ops.end();
  if (has_pair && c.params.pairs.empty()) throw UsageError("--op pair needs --pairs SRC:DST[,SRC:DST...]");
  if (!has_pair && (!c.params.pairs.empty() || c.params.bidirectional)) {
    throw UsageError(std::string(c.params.bidirectional ? "--bidir" : "--pairs") + " applies only to --op pair");
  }
  return c;
}

}  // namespace

std::vector<int> parse_rank_list(const std::string& flag, const std::string& text) {
  if (text.empty()) throw UsageError(flag + ": empty rank list (e.g. 0,3)");
  std::vector<int> out;
  for (const auto& item : split_list(text)) {
    const bool digits = !item.empty() && item.size() < 10 &&
                        std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) throw UsageError(flag + ": '" + item + "' is not a rank number (e.g. 0,3)");
    out.push_back(std::stoi(item));
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) throw UsageError(flag + ": a rank is listed twice");
  return out;
}

Command parse_command_line(const std::vector<std::string>& all_args) {
  Command cmd;
  // `plan` hands everything after "--" (or everything but --json FILE) to the Megatron parser.
  if (!all_args.empty() && all_args[0] == "plan") {
    cmd.kind = Command::Kind::kPlan;
    bool after = false;
    const bool has_separator = std::find(all_args.begin(), all_args.end(), "--") != all_args.end();
    for (std::size_t i = 1; i < all_args.size(); ++i) {
      const std::string& w = all_args[i];
      if (!after && w == "--") {
        after = true;
      } else if (!after && (w == "--json" || w.rfind("--json=", 0) == 0)) {
        if (w == "--json") {
          if (i + 1 >= all_args.size()) throw UsageError("--json: a file name is required");
          cmd.plan.json_path = all_args[++i];
        } else {
          cmd.plan.json_path = w.substr(7);
        }
      } else if (!after && (w == "--help" || w == "-h")) {
        cmd.kind = Command::Kind::kHelp;
        cmd.help_text = "Usage: pipebench plan [--json FILE] -- <Megatron-LM arguments>\n";
        return cmd;
      } else if (!after && has_separator) {
        throw UsageError(w + ": unknown plan option (Megatron arguments go after --)");
      } else {
        cmd.plan.megatron_args.push_back(w);
      }
    }
    return cmd;
  }
  std::vector<std::string> args, gbench, run_megatron;
  bool after_separator = false;
  for (const auto& a : all_args) {
    if (!all_args.empty() && all_args[0] == "run" && (after_separator || a == "--")) {
      if (after_separator) run_megatron.push_back(a);
      after_separator = true;
      continue;
    }
    (a.rfind("--benchmark_", 0) == 0 ? gbench : args).push_back(a);
  }

  CLI::App app{"pipebench: communication benchmarks for pipeline-parallel training", "pipebench"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "print the version");

  BenchText text;
  BenchConfig bench;
  auto* bench_cmd = app.add_subcommand("bench", "nccl-tests style sweep with a bus-bandwidth table");
  add_bench_options(*bench_cmd, text, bench);

  RunOptions run;
  std::string run_backend = "auto", run_min = "8", run_max = "1G";
  auto* run_cmd = app.add_subcommand("run", "the whole qualification job with defaults (what 'make run' runs)");
  run_cmd->add_option("--out", run.out_dir, "results folder (default results/runs/<host>-<UTC time>/)");
  run_cmd->add_option("--backend", run_backend, "nccl, mpi or auto")->capture_default_str();
  run_cmd->add_option("-g,--ngpus", run.gpus_per_process, "GPUs per process (default: all, or 1 per MPI rank)")
      ->check(CLI::Range(1, 1024));
  run_cmd->add_option("-b,--minbytes", run_min, "smallest size")->capture_default_str();
  run_cmd->add_option("-e,--maxbytes", run_max, "largest size")->capture_default_str();
  run_cmd->add_option("--host-ranks", run.host_ranks, "MPI ranks to start when no GPU is visible")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run_cmd->add_option("--point-seconds", run.point_budget_s, "about how long each point may take")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run_cmd->add_option("-T,--timeout", run.timeout_s, "seconds a point may take before the job is aborted")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--tflops", run.tflops, "compute rate for the prediction when no GPU can measure it")
      ->check(CLI::PositiveNumber);
  bool no_plan = false;
  run_cmd->add_flag("--no-plan", no_plan, "skip the model's plan, its messages and the prediction");

  TopoOptions topo;
  auto* topo_cmd = app.add_subcommand("topo", "PCIe/NVLink/NUMA/NIC topology, pair matrix like nvidia-smi topo -m, warnings");
  topo_cmd->add_option("--xml", topo.discovery.hwloc_xml, "read an hwloc XML export instead of this machine");
  topo_cmd->add_option("--nccl-xml", topo.discovery.nccl_xml, "read NCCL's topology XML (NCCL_TOPO_FILE format)");
  topo_cmd->add_flag("--under-load", topo.discovery.under_load, "sample PCIe link state while a host<->device copy runs");
  topo_cmd->add_option("--format", topo.format, "text, json or dot (the PCIe tree for graphviz)")
      ->check(CLI::IsMember({"text", "json", "dot"}))
      ->capture_default_str();
  topo_cmd->add_option("--export-xml", topo.export_xml, "write this machine's hwloc XML (with I/O devices) here");

  PairsOptions pairs;
  std::string pairs_backend = "auto", pairs_sizes = "256K,64M", pairs_list;
  auto* pairs_cmd = app.add_subcommand("pairs", "every GPU pair, send/recv one way and both ways, as matrices");
  pairs_cmd->add_option("--sizes", pairs_sizes, "message sizes")->capture_default_str();
  pairs_cmd->add_option("--pairs", pairs_list, "only these transfers SRC:DST,... (default: every ordered pair)");
  pairs_cmd->add_option("--backend", pairs_backend, "nccl, mpi or auto")->capture_default_str();
  pairs_cmd->add_option("-g,--ngpus", pairs.gpus_per_process, "GPUs per process (default: all, or 1 per MPI rank)")
      ->check(CLI::Range(1, 1024));
  pairs_cmd->add_option("-n,--iters", pairs.iters, "ops per timed batch")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  pairs_cmd->add_option("-w,--warmup_iters", pairs.warmup, "untimed ops per point")->check(CLI::Range(0, 1 << 24))->capture_default_str();
  pairs_cmd->add_option("--reps", pairs.reps, "timed batches per point")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  pairs_cmd->add_option("-c,--check", pairs.checks, "data-check runs per point")->check(CLI::Range(0, 1000))->capture_default_str();
  pairs_cmd->add_option("-T,--timeout", pairs.timeout_s, "seconds a point may take before the job is aborted")
      ->check(CLI::NonNegativeNumber);
  pairs_cmd->add_option("--json", pairs.json_path, "write the results JSON here");
  pairs_cmd->add_option("--csv", pairs.csv_path, "write one CSV line per record here");

  PredictOptions predict;
  auto* predict_cmd = app.add_subcommand("predict", "1F1B vs interleaved for every v, simulated on a bandwidth table");
  predict_cmd->add_option("--plan", predict.plan_path, "the plan (pipebench plan --json)")->required();
  predict_cmd->add_option("--table", predict.table_path, "measured costs: the results JSON of bench --plan");
  predict_cmd->add_option("--link-gbps", predict.link_gbps, "what-if: every link this many GB/s per direction")
      ->check(CLI::PositiveNumber);
  predict_cmd->add_option("--link-latency-us", predict.link_latency_us, "what-if: per-message latency")
      ->check(CLI::NonNegativeNumber);
  predict_cmd->add_flag("--zero-comm", predict.zero_comm, "free communication (a compute-only bound)");
  predict_cmd->add_option("--link", predict.class_links, "what-if per class: CLASS=GBPS[,US] (repeatable)");
  predict_cmd->add_option("--topology", predict.topology_path,
                          "with --link: classes from this `pipebench topo --format json` file (rank i = GPU i)");
  predict_cmd->add_flag("--class-fallback", predict.class_fallback,
                        "with --table: use a measured group of the same class when the exact one is missing");
  predict_cmd->add_flag("--shared-path", predict.shared_path, "every pipeline pair shares one path (no GPU P2P)");
  predict_cmd->add_option("--fwd-ms-per-layer", predict.compute.fwd_ms_per_layer, "forward time per layer and microbatch")
      ->check(CLI::PositiveNumber);
  predict_cmd->add_option("--bwd-ms-per-layer", predict.compute.bwd_ms_per_layer, "backward time (default 2x forward)")
      ->check(CLI::PositiveNumber);
  predict_cmd->add_option("--tflops", predict.compute.tflops, "achieved TFLOP/s per GPU for the FLOPs model")
      ->check(CLI::PositiveNumber);
  predict_cmd->add_option("--comm-sm-slowdown", predict.compute.comm_sm_slowdown,
                          "compute runs (1 + F) x slower while the rank's NCCL work runs (default 0)")
      ->check(CLI::NonNegativeNumber);
  predict_cmd->add_flag("--measure-compute", predict.measure_compute,
                        "time the layer's GEMMs at their exact shapes with cuBLAS on GPU 0");
  predict_cmd->add_option("--optimizer-ms", predict.compute.optimizer_ms, "optimizer step time")->check(CLI::NonNegativeNumber);
  predict_cmd->add_option("--schedule", predict.schedule, "only this schedule (1f1b, interleaved, interleaved:v4)");
  predict_cmd->add_option("--trace", predict.trace_dir, "write one Chrome trace per schedule into this folder");
  predict_cmd->add_option("--json", predict.json_path, "write the prediction JSON here");

  TraceCommandOptions trace;
  int trace_first_rank = -1;
  std::string trace_nvtx_prefix;
  auto* trace_cmd = app.add_subcommand("trace", "what a profiled run spent per device and per collective (nsys SQLite or PyTorch profiler JSON)");
  trace_cmd->add_option("file", trace.path, "an Nsight Systems SQLite export or a PyTorch profiler (Kineto) JSON trace")->required();
  trace_cmd->add_option("--by", trace.by, "name rows by kernel, or by the innermost NVTX range that launched them")
      ->check(CLI::IsMember({"kernel", "nvtx"}))
      ->capture_default_str();
  trace_cmd->add_flag("--demangled", trace.demangled, "full kernel names (nsys demangledName) instead of base names");
  trace_cmd->add_option("--top", trace.top_rows, "rows shown per device (0: all; --json has all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  trace_cmd->add_option("--chrome-trace", trace.chrome_trace_path, "convert the nsys export to a Chrome trace here");
  trace_cmd->add_option("--activity", trace.activity, "with --chrome-trace: kernel,nvtx,nvtx-kernel,cuda-api (default all)");
  trace_cmd->add_option("--nvtx-prefix", trace_nvtx_prefix, "with --chrome-trace: only NVTX ranges starting with these (comma list)");
  trace_cmd->add_option("--plan", trace.plan_path, "hold the profile against this plan (pipebench plan --json)");
  trace_cmd->add_option("--prediction", trace.prediction_path, "and its communication share against this prediction");
  trace_cmd->add_option("--schedule", trace.schedule, "the plan's schedule that ran (1f1b, interleaved:v2; default: best match)");
  trace_cmd->add_option("--first-rank", trace_first_rank, "global rank of the profile's lowest device (default: the trace's, or 0)")
      ->check(CLI::Range(0, 1 << 24));
  trace_cmd->add_option("--iterations", trace.iterations, "training iterations in the profile (default: ProfilerStep count, else estimated)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  trace_cmd->add_option("--json", trace.json_path, "write the pipebench.trace/1 JSON here");

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    std::ostringstream out, err;
    app.exit(e, out, err);
    cmd.help_text = out.str();
    return cmd;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  if (version) {
    cmd.kind = Command::Kind::kVersion;
    return cmd;
  }
  if (bench_cmd->parsed()) {
    cmd.kind = Command::Kind::kBench;
    cmd.bench = finish_bench(*bench_cmd, text, bench);
    cmd.bench.benchmark_args = gbench;
    return cmd;
  }
  if (run_cmd->parsed()) {
    cmd.kind = Command::Kind::kRun;
    run.backend = parse_backend_kind("--backend", run_backend);
    run.min_bytes = parse_size_bytes("-b", run_min);
    run.max_bytes = parse_size_bytes("-e", run_max);
    (void)sweep_sizes(run.min_bytes, run.max_bytes, run.factor, 0);
    run.benchmark_args = gbench;
    run.megatron_args = run_megatron;
    run.plan = !no_plan;
    cmd.run = run;
    return cmd;
  }
  if (predict_cmd->parsed()) {
    cmd.kind = Command::Kind::kPredict;
    cmd.predict = predict;
    return cmd;
  }
  if (trace_cmd->parsed()) {
    if (!gbench.empty()) throw UsageError(gbench.front() + ": Google Benchmark flags apply to bench and run only");
    cmd.kind = Command::Kind::kTrace;
    if (trace_first_rank >= 0) trace.first_rank = trace_first_rank;
    for (auto& prefix : split_list(trace_nvtx_prefix))
      if (!prefix.empty()) trace.nvtx_prefixes.push_back(std::move(prefix));
    cmd.trace = trace;
    return cmd;
  }
  if (pairs_cmd->parsed()) {
    if (!gbench.empty()) throw UsageError(gbench.front() + ": Google Benchmark flags apply to bench and run only");
    cmd.kind = Command::Kind::kPairs;
    pairs.backend = parse_backend_kind("--backend", pairs_backend);
    pairs.sizes_bytes = parse_size_list("--sizes", pairs_sizes);
    if (!pairs_list.empty()) pairs.pairs = parse_pairs("--pairs", pairs_list);
    cmd.pairs = pairs;
    return cmd;
  }
  if (topo_cmd->parsed()) {
    if (!gbench.empty()) throw UsageError(gbench.front() + ": Google Benchmark flags apply to bench and run only");
    cmd.kind = Command::Kind::kTopo;
    cmd.topo = topo;
    return cmd;
  }
  if (!gbench.empty()) throw UsageError(gbench.front() + ": Google Benchmark flags go after a subcommand");
  cmd.help_text = app.help();
  return cmd;
}

}  // namespace pipebench
