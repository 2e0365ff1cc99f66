// SPDX-License-Identifier: Apache-2.0
// `pipebench run`.
#include "app/run_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/gpu_options.h"
#include "app/host_relaunch.h"
#include "app/profile_prediction.h"
#include "app/report_inputs.h"
#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "collectives/registry.h"
#include "core/command_line.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/printf_string.h"
#include "core/sizes.h"
#include "core/units.h"
#include "core/utc_timestamp.h"
#include "harness/benchmark_flags.h"
#include "harness/interrupt.h"
#include "io/compute_model_io.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/results_io.h"
#include "launch/mpirun_relaunch.h"
#include "megatron/plan.h"
#include "replay/replay.h"
#include "report/prediction_report.h"
#include "report/report_writer.h"
#include "report/rule.h"
#include "report/run_summary_printer.h"
#include "service/bench_sweep.h"
#include "service/model_error_flags.h"
#include "service/pass_cost_terms.h"
#include "service/plan_bench.h"
#include "service/plan_replayer.h"
#include "sim/predict_request.h"
#include "topology/discovery.h"
#include "trace/job_reader.h"

namespace pipebench {

void RunCommand::check_launch(bool tcp_rendezvous) const {
  require_backend_for_launch(options_.backend, tcp_rendezvous);
}

void RunCommand::before_world(const std::vector<std::string>& args) {
  // --gpus names GPUs: no fallback to host ranks (where none is visible, the one process says so). run's
  // ranks stop at their next point and say which signal the user sent (harness/interrupt.h).
  const RunOptions& o = options_;
  if (o.gpu_list.empty()) relaunch_on_host_ranks(o.backend, o.host_ranks, args, StopForwarding::kGraceful);
}

namespace {

// What `run` assumes where it has no measurement (each is printed with the prediction as assumed):
// - the P2P link when the plan needs more ranks than are here: PCIe Gen4 x16, ~25 GB/s measured peak
//   (bandwidth-and-interleaving-figures.md, PCIe row), unless GPU 0's link speed is known;
constexpr double kAssumedLinkGbps = 25;
// - a per-message latency of that link: an assumption of the order of NCCL's small-message time on
//   PCIe, not a measurement;
constexpr double kAssumedLinkLatencyUs = 10;
// - the compute rate: below the 135-163 TFLOP/s per A100 Megatron-LM reaches (Narayanan et al. 2021,
//   bandwidth-and-interleaving-figures.md), so that compute is not made to look faster than it is.
constexpr double kAssumedTflops = 100;

// The model `run` plans when no Megatron arguments are given: a small GPT whose pipeline uses up to 4
// of the run's ranks (and 4 when the run has fewer than 2, predicted from theoretical bandwidth).
std::vector<std::string> preset_args(int pp) {
  const std::string p = std::to_string(pp);
  return split_words(
      "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 1024 --max-position-embeddings 1024 "
      "--micro-batch-size 1 --global-batch-size 16 --bf16 --vocab-size 50257 --pipeline-model-parallel-size " +
      p + " --world-size " + p);
}

// Fewer ranks than the plan needs: the theoretical bandwidth of GPU 0's PCIe link, marked as such.
AssumedLinks assumed_links(int n, int plan_world, std::string* note) {
  double gbps = 0;
  try {
    const TopologyView v = discover_topology({});
    if (!v.topology.gpus.empty()) {
      gbps = v.topology.nodes[static_cast<std::size_t>(v.topology.gpus[0].node)].link_gbps;
    }
  } catch (const std::exception&) {
  }
  if (gbps <= 0) gbps = kAssumedLinkGbps;
  *note = printf_string("theoretical: %d rank%s here, the plan needs %d; every link at %.1f GB/s (GPU 0's link), %g us",
                        n, n == 1 ? "" : "s", plan_world, gbps, kAssumedLinkLatencyUs);
  return AssumedLinks{gbps, kAssumedLinkLatencyUs, {}, {}, *note};
}

// The model run plans for n ranks: the Megatron-LM arguments given, else the preset, whose pipeline uses up to
// 4 of them.
Plan run_plan(const RunOptions& o, int n) {
  const bool preset = o.megatron_args.empty();
  return make_plan(parse_megatron_args(preset ? preset_args(n >= 2 ? std::min(n, 4) : 4) : o.megatron_args), n);
}

// --profile: the job's own profiles, matched to the plan before anything is timed. Rank 0 reads them; a
// mismatch stops every rank alike (one line, exit 2); every rank receives the per-rank compute its replay
// runs, as bytes (io/compute_model_io.h).
struct RunProfile {
  std::optional<ProfileModel> model;    // rank 0
  std::optional<ComputeModel> compute;  // every rank
};

RunProfile profile_step(const RunOptions& o, const World& world, int n) {
  RunProfile out;
  if (o.profiles.empty()) return out;
  std::string error, bytes;
  if (world.rank() == 0) {
    try {
      out.model = profile_model(run_plan(o, n), o.profiles, o.profile_schedule, std::nullopt);
      bytes = compute_model_to_json(out.model->calibration.compute).dump();
      std::cout << "# Profile: compute " << out.model->cost_text << "\n" << std::flush;
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  if (!world.all(error.empty())) throw UsageError(error);
  out.compute = compute_model_from_json(nlohmann::json::parse(world.broadcast(bytes, 0)));
  return out;
}

// What plan_and_predict leaves for the replay: the plan (every rank) and rank 0's prediction.
struct PlannedRun {
  Plan plan;
  ComputeOptions compute;
  std::optional<ComputeModel> compute_model;  // --profile's per-rank compute, in place of `compute`
  std::unique_ptr<Prediction> prediction;     // rank 0 only
  int interrupted_status = 0;                 // 130/143 when SIGINT/SIGTERM stopped the plan's sweep
};

// Plan, time the plan's messages, predict. Collective; rank 0 prints.
PlannedRun plan_and_predict(const RunOptions& o, const World& world, Backend& backend, const BenchConfig& sweep,
                            const std::string& dir, const RunProfile& profile) {
  const int n = backend.nranks();
  const bool preset = o.megatron_args.empty();
  PlannedRun run{run_plan(o, n), {}, profile.compute, nullptr};
  const Plan& plan = run.plan;
  const int plan_world = plan.layout.world;
  if (world.rank() == 0) {
    save_plan(dir + "/plan.json", plan);
    std::cout << "#\n# Plan: " << (preset ? "preset small GPT" : "the Megatron-LM arguments given") << ", world "
              << plan_world << " (pp " << plan.layout.pp << ", tp " << plan.layout.tp << ", dp " << plan.layout.dp
              << "), " << plan.layout.microbatches
              << " microbatches; files plan.json, plan_results.json, prediction.json\n";
  }
  const bool measurable = plan_world <= n;
  ResultSet results;  // rank 0: the plan's messages as measured, kept in memory (also in plan_results.json)
  if (measurable) {
    BenchConfig c = sweep;
    c.outputs.json_path = dir + "/plan_results.json";
    c.outputs.csv_path.clear();
    c.measure.point_budget_s = 0;
    c.measure.iters = 5;
    c.measure.reps = 3;
    c.measure.warmup = 2;
    c.plan_pass_costs = true;
    // --benchmark_out holds the sweep's points; the plan's messages must not replace them.
    c.measure.benchmark_args.erase(
        std::remove_if(c.measure.benchmark_args.begin(), c.measure.benchmark_args.end(),
                       [](const std::string& a) { return a.rfind("--benchmark_out", 0) == 0; }),
        c.measure.benchmark_args.end());
    const int status = run_plan_bench_on(backend, plan, "(run's plan)", c, world, &results);
    if (status >= 128) {
      run.interrupted_status = status;
      return run;
    }
  }
  run.compute.tflops = o.tflops > 0 ? o.tflops : kAssumedTflops;
  if (world.rank() != 0) return run;
  std::string cost_note = "measured on this node";
  PredictRequest request;
  const std::optional<PassCosts> pass_costs = results.pass_costs;
  std::vector<std::string> pass_sources;  // the pass-cost terms of the prediction, with where each came from
  if (measurable) {
    request.costs = measured_table(std::move(results), dir + "/plan_results.json");
  } else {
    request.costs = assumed_links(n, plan_world, &cost_note);
  }
  try {
    // With --profile the job's own compute (per rank, as it ran) meets this node's communication.
    request.compute = run.compute_model ? *run.compute_model : make_compute_model(plan, run.compute);
    if (!run.compute_model) pass_sources = use_pass_costs(pass_costs, {}, request.compute);
    run.prediction = std::make_unique<Prediction>(predict(plan, request).prediction);
  } catch (const ModelError& e) {
    throw with_flags(e, dir + "/plan_results.json", "");  // the same lines predict prints
  }
  if (profile.model) apply_profile(*profile.model, *run.prediction, false);
  run.prediction->cost_sources.insert(run.prediction->cost_sources.end(), pass_sources.begin(), pass_sources.end());
  const Prediction& p = *run.prediction;
  save_prediction(dir + "/prediction.json", p);
  if (profile.model) {
    std::cout << "# Prediction (communication " << cost_note << "; compute " << profile.model->cost_text << ")\n";
    print_profile_calibration(std::cout, p);
  } else {
    std::cout << "# Prediction (communication " << cost_note << "; compute " << (o.tflops > 0 ? "" : "assumed ")
              << run.compute.tflops << " TFLOP/s)\n";
  }
  for (const auto& source : pass_sources) std::cout << "# Prediction's pass cost: " << source << "\n";
  print_schedule_table(std::cout, p, false);
  std::cout << "# Prediction verdict: " << p.verdict << "\n";
  std::cout.flush();
  return run;
}

// Replays every schedule of the plan for a few iterations on the backend the messages were timed on (and
// its splits, as bench --plan's: the calls bench timed), writing replay.json; rank 0 prints predicted vs
// replayed, or why there was no replay. Collective.
RunReplay replay_step(const RunOptions& o, const World& world, Backend& backend, const BenchConfig& c,
                      const PlannedRun& run, const std::string& dir) {
  RunReplay step{std::nullopt, 0, "", {}, run.plan.layout.world, world.size(), c.gpus_per_process};
  // The replay needs one process per plan rank, each with one device (MPI: a host rank).
  if (step.plan_world == world.size() && (c.backend == BackendKind::kMpi || c.gpus_per_process == 1)) {
    ReplayOptions ro;
    ro.compute = run.compute;
    ro.compute_model = run.compute_model;
    ro.iterations = o.replay_iterations;
    ReplayResult r = PlanReplayer(world, backend)
                         .replay(run.plan, ro, run.prediction.get(), dir + "/replay.json", dir + "/plan.json");
    if (world.rank() != 0) return step;
    step.band = run.prediction ? run.prediction->band : kDefaultSpeedupBand;
    step.band_source = run.prediction ? run.prediction->band_source : "default";
    step.agreement = replay_agreement(r, step.band, step.band_source);
    step.result = std::move(r);
  }
  if (world.rank() == 0) print_run_replay(std::cout, step);
  std::cout << std::flush;
  return step;
}

// Rank 0: the report of the whole run folder into the same folder (as `report DIR --out DIR`), its line
// on the console.
void report_step(const RunOptions& o, const std::string& dir, RunOutcome& out) {
  const std::vector<Rule> rules = o.rules_file.empty() ? default_rules() : read_rules_file(o.rules_file);
  ReportFiles files;
  out.report_status = write_report(load_report_inputs({dir}, o.baseline), rules, dir, &files);
  out.report = files;
  print_run_report(std::cout, files, out.report_status);
  std::cout << std::flush;
}

// run's sweep: the three ops Megatron's pipeline uses, a few repetitions per point so the report can
// judge stability (nccl-tests' defaults are -n 20 -w 5 with one repetition).
constexpr int kRunIters = 20;
constexpr int kRunWarmup = 3;
constexpr int kRunReps = 5;

BenchConfig run_bench_config(const RunOptions& o, const World& world, BackendKind kind) {
  BenchConfig c;
  c.sweep.ops.clear();
  for (const char* name : {"all_reduce", "all_gather", "sendrecv"})
    c.sweep.ops.push_back(&OpRegistry::instance().find("--op", name));
  c.sweep.sizes_bytes = sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0);
  c.backend = kind;
  c.gpu_list = o.gpu_list;
  c.gpus_per_process = default_gpus_per_process(o.gpus_per_process, o.gpu_list, kind, world);
  c.measure.iters = kRunIters;
  c.measure.warmup = kRunWarmup;
  c.measure.reps = kRunReps;
  c.measure.checks = 1;
  c.measure.point_budget_s = o.point_budget_s;
  c.measure.timeout_s = o.timeout_s;
  c.measure.quiet = o.quiet;
  c.measure.benchmark_args = o.benchmark_args;
  return c;
}

// The run folder, named by rank 0 and shared so every rank agrees; created by rank 0. Empty on the ranks
// other than the one that failed to create it (that one throws the message).
std::optional<std::string> make_run_folder(const RunOptions& o, const World& world) {
  std::string dir = o.out_dir;
  if (dir.empty()) {
    std::string stamp = utc_timestamp();
    stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
    stamp.erase(std::remove(stamp.begin(), stamp.end(), '-'), stamp.end());
    dir = "results/runs/" + world.host() + "-" + stamp;
  }
  dir = world.broadcast(dir, 0);
  std::string mkdir_error;
  if (world.rank() == 0) {
    try {
      make_output_folder("--out", dir);
    } catch (const UsageError& e) {
      mkdir_error = e.what();
    }
  }
  if (!world.all(mkdir_error.empty())) {
    if (!mkdir_error.empty()) throw UsageError(mkdir_error);
    return std::nullopt;
  }
  return dir;
}

// What run writes into its folder (besides the report's plot-*.svg).
constexpr const char* kRunFiles[] = {"results.json",    "results.csv", "plan.json",   "plan_results.json",
                                     "prediction.json", "replay.json", "summary.txt", "report.html",
                                     "report.md",       "report.json"};

// Every file run writes into DIR: kRunFiles, and the report's plots (those there now: any may be written).
std::vector<FileArg> run_outputs(const std::string& dir) {
  std::vector<FileArg> outputs;
  for (const char* name : kRunFiles) outputs.push_back({"--out", dir + "/" + name});
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("plot-", 0) == 0 && name.size() > 9 && name.compare(name.size() - 4, 4, ".svg") == 0)
      outputs.push_back({"--out", e.path().string()});
  }
  return outputs;
}

// The report reads the whole folder: another run's files left in it (its prediction, its plots, the files
// of steps this run skips) would be reported as this run's. A folder holding any of them is refused, after
// the checks of the flags (rank 0; every rank stops alike).
void check_run_folder_unused(const World& world, const std::string& dir) {
  std::string error;
  if (world.rank() == 0) {
    std::vector<std::string> found;
    for (const auto& f : run_outputs(dir)) {
      std::error_code ec;
      if (std::filesystem::symlink_status(f.path, ec).type() != std::filesystem::file_type::not_found && !ec)
        found.push_back(std::filesystem::path(f.path).filename().string());
    }
    std::string names;
    for (std::size_t i = 0; i < found.size() && i < 3; ++i) names += (i ? ", " : "") + found[i];
    if (found.size() > 3) names += " and " + std::to_string(found.size() - 3) + " more";
    if (!found.empty()) {
      error = "--out " + dir + ": holds the files of another run (" + names +
              "); give a new or empty folder, or remove them";
    }
  }
  if (!world.all(error.empty())) throw UsageError(error);
}

// Every file run will write, checked before anything is measured (rank 0; every rank stops alike): a
// regular file or a new path, never a link, FIFO or device, and none of them a file of --baseline,
// --profile or --rules.
void check_run_outputs(const RunOptions& o, const World& world, const std::string& dir) {
  std::string error;
  if (world.rank() == 0) {
    try {
      const std::vector<FileArg> outputs = run_outputs(dir);
      for (const auto& f : outputs) require_output_path(f.flag, f.path);
      std::vector<FileArg> inputs;
      if (!o.baseline.empty()) {
        for (const auto& f : expand_input("--baseline", o.baseline)) inputs.push_back({"--baseline", f});
      }
      for (const auto& f : o.profiles) inputs.push_back({"--profile", f});
      inputs.push_back({"--rules", o.rules_file});
      require_distinct_files(inputs, outputs);
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  if (!world.all(error.empty())) throw UsageError(error);
}

// Like nccl-tests' "Reducing maxBytes": the defaults must fit the machine, so drop sizes that don't.
void fit_sizes_to_backend(BenchConfig& c, Backend& backend, const World& world) {
  while (true) {
    try {
      validate_for_backend(c, backend, world);
      return;
    } catch (const UsageError& e) {
      if (c.sweep.sizes_bytes.size() <= 1) throw;
      if (world.rank() == 0) {
        std::cout << "# reducing the largest size to "
                  << format_size(c.sweep.sizes_bytes[c.sweep.sizes_bytes.size() - 2]) << ": " << e.what() << "\n";
      }
      c.sweep.sizes_bytes.pop_back();
    }
  }
}

// summary.txt: the whole outcome as print_run_file writes it.
void save_summary(const std::string& dir, const RunOutcome& out) {
  std::ostringstream text;
  print_run_file(text, out);
  write_output_file("", dir + "/summary.txt", text.str());
}

// plan -> predict -> replay when the options ask for them, into `out`.
void plan_steps(const RunOptions& o, const World& world, Backend& backend, const BenchConfig& c, const std::string& dir,
                const RunProfile& profile, RunOutcome& out) {
  PlannedRun run = plan_and_predict(o, world, backend, c, dir, profile);
  out.interrupted = run.interrupted_status;
  if (run.interrupted_status != 0) return;
  if (run.prediction) out.prediction_verdict = run.prediction->verdict;
  if (o.replay) out.replay = replay_step(o, world, backend, c, run, dir);
}

// The report's verdict decides the exit status; a failed sweep (wrong values, failed points) still does.
// Rank 0 alone writes the report; a failure there is carried to the other ranks (they would otherwise
// wait in the broadcast) and rethrown on rank 0 for main to report.
int finish_with_report(const RunOptions& o, const World& world, const std::string& dir, RunOutcome& out) {
  std::string report_rc = "0";
  std::exception_ptr report_error;
  if (world.rank() == 0) {
    try {
      report_step(o, dir, out);
      if (out.report_status != 0) out.exit_status = out.report_status;
      report_rc = std::to_string(out.exit_status);
      save_summary(dir, out);
      if (out.prediction_verdict) std::cout << "#\n";
      print_run_answer(std::cout, out);
      std::cout << "# Summary and verdicts saved in " << dir << "/summary.txt\n" << std::flush;
    } catch (const UsageError&) {
      report_error = std::current_exception();
      report_rc = std::to_string(static_cast<int>(ExitCode::kUsage));
    } catch (const std::exception&) {
      report_error = std::current_exception();
      report_rc = std::to_string(static_cast<int>(ExitCode::kRuntimeError));
    }
  }
  report_rc = world.broadcast(report_rc, 0);
  if (report_error) std::rethrow_exception(report_error);
  return std::stoi(report_rc);
}

// A run stopped by SIGINT/SIGTERM: the summary of what finished goes to summary.txt (rank 0); the steps
// after the interrupted one are not run. Returns 128 + the signal.
int finish_interrupted(const World& world, const std::string& dir, RunOutcome& out) {
  out.exit_status = out.interrupted;
  if (world.rank() == 0) {
    print_run_interrupted(std::cout, out.interrupted);
    save_summary(dir, out);
    std::cout << "# Summary of what finished saved in " << dir << "/summary.txt\n" << std::flush;
  }
  return out.interrupted;
}

}  // namespace

int RunCommand::run(const World* wp) {
  const InterruptGuard interrupts;
  const RunOptions& o = options_;
  const World& world = *wp;
  const BackendKind kind = backend_for_gpus(o.backend, resolve_backend(o.backend, world), o.gpu_list);
  BenchConfig c = run_bench_config(o, world, kind);
  const std::optional<std::string> folder = make_run_folder(o, world);
  if (!folder) return static_cast<int>(ExitCode::kUsage);
  const std::string& dir = *folder;
  check_run_outputs(o, world, dir);
  c.outputs.json_path = dir + "/results.json";
  c.outputs.csv_path = dir + "/results.csv";
  auto backend = make_backend(c.backend, world, c.gpus_per_process, c.gpu_list);
  fit_sizes_to_backend(c, *backend, world);
  const RunProfile profile = profile_step(o, world, backend->nranks());
  check_run_folder_unused(world, dir);
  std::vector<ResultRecord> records;
  RunOutcome out;  // rank 0: what the steps did, printed into summary.txt
  out.exit_status = run_bench_on(*backend, c, world, &records);
  if (world.rank() == 0) {
    out.sweep = summarize_run(records, dir);
    print_run_summary(std::cout, out.sweep);
  }
  if (out.exit_status >= 128) out.interrupted = out.exit_status;
  if (out.interrupted == 0 && o.plan) plan_steps(o, world, *backend, c, dir, profile, out);
  if (out.interrupted != 0) return finish_interrupted(world, dir, out);
  return finish_with_report(o, world, dir, out);
}

std::string RunCommand::summary() const { return "the whole qualification job with defaults (what 'make run' runs)"; }

void RunCommand::add_options(CLI::App& sub) {
  RunOptions& o = options_;
  sub.add_option("--out", o.out_dir, "results folder (default results/runs/<host>-<UTC time>/)");
  sub.add_option("--backend", backend_, "nccl, mpi or auto")->capture_default_str();
  sub.add_option("--gpus", gpus_, kGpusOptionHelp);
  sub.add_option("-g,--ngpus", o.gpus_per_process, "GPUs per process (default: all, or 1 per MPI rank)")
      ->check(CLI::Range(1, 1024));
  sub.add_option("-b,--minbytes", min_bytes_, "smallest size")->capture_default_str();
  sub.add_option("-e,--maxbytes", max_bytes_, "largest size")->capture_default_str();
  sub.add_option("--host-ranks", o.host_ranks, "MPI ranks to start when no GPU is visible")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sub.add_option("--point-seconds", o.point_budget_s, "about how long each point may take")
      ->check(checks::positive(3600))
      ->capture_default_str();
  add_timeout_option(sub, o.timeout_s);
  sub.add_option("--tflops", o.tflops, "compute rate for the prediction when no GPU can measure it")
      ->check(checks::in_range(checks::kMinTflops, checks::kMaxTflops));
  sub.add_option("--profile", o.profiles,
                 "compute from the job's own profile (one PyTorch profiler trace or Nsight Systems export per rank, "
                 "files or a folder; needs the job's Megatron-LM arguments after --)")
      ->expected(1, -1);
  sub.add_option("--profile-schedule", o.profile_schedule,
                 "the schedule --profile's profiles ran (default: the plan's schedule whose passes match them)");
  sub.add_flag("--no-plan", no_plan_, "skip the model's plan, its messages, the prediction and the replay");
  sub.add_flag("--no-replay", no_replay_, "skip the replay of the plan's schedules");
  sub.add_option("--replay-iterations", o.replay_iterations, "timed iterations of each schedule's replay")
      ->check(CLI::Range(1, kMaxReplayIterations))
      ->capture_default_str();
  sub.add_option("--rules", o.rules_file, "rules file (YAML or JSON) of the report, replacing the default rules");
  sub.add_option("--baseline", o.baseline, "results file or run folder the report compares each point against");
  sub.add_flag("--quiet", o.quiet, "no progress lines on stderr");
  sub.footer(
      "Megatron-LM arguments: pipebench run [OPTIONS] -- <Megatron-LM arguments> plans, predicts and replays that\n"
      "model instead of the built-in preset (the flags of pipebench plan --help).\n"
      "Google Benchmark flags pass through to the sweep: --benchmark_filter=REGEX, --benchmark_format=json,\n"
      "--benchmark_out=FILE (see pipebench bench --help).");
}

void RunCommand::finish(const CLI::App& /*sub*/, const CommandExtras& extras) {
  options_.backend = parse_backend_kind("--backend", backend_);
  options_.gpu_list = parse_gpus_option(gpus_, options_.backend);
  options_.min_bytes = parse_size_bytes("-b", min_bytes_);
  options_.max_bytes = parse_size_bytes("-e", max_bytes_);
  (void)sweep_sizes(options_.min_bytes, options_.max_bytes, options_.factor, 0);
  check_benchmark_flags(extras.benchmark_args);
  options_.benchmark_args = extras.benchmark_args;
  options_.megatron_args = extras.passthrough;
  if (!options_.megatron_args.empty()) {
    // Megatron's rules that do not depend on the ranks present, before anything is measured.
    const MegatronArgs args = parse_megatron_args(options_.megatron_args);
    (void)virtual_stages(args);
    if (args.world_size) (void)make_layout(args, 0);
  }
  options_.plan = !no_plan_;
  options_.replay = !no_replay_;
  check_profile_options();
  // Bad rules or baseline: before anything is measured.
  if (!options_.rules_file.empty()) (void)read_rules_file(options_.rules_file);
  if (!options_.baseline.empty()) (void)check_baseline(options_.baseline);
}

void RunCommand::check_profile_options() {
  RunOptions& o = options_;
  if (o.profiles.empty()) {
    if (!o.profile_schedule.empty())
      throw UsageError("--profile-schedule: names the schedule of --profile's profiles; give --profile");
    return;
  }
  if (o.megatron_args.empty())
    throw UsageError("--profile: give the job's Megatron-LM arguments after -- (the model its profiles ran)");
  if (!o.plan) throw UsageError("--profile: predicts the plan's schedules; it cannot go with --no-plan");
  if (o.tflops > 0) throw UsageError("--tflops: the profile gives the compute (--profile)");
  o.profiles = expand_trace_inputs("--profile", o.profiles);
  for (const auto& f : o.profiles) require_input_file("--profile", f);  // never a blocking read of a FIFO
}

}  // namespace pipebench
