// SPDX-License-Identifier: Apache-2.0
// `pipebench replay`: plan -> (table -> prediction) -> replay -> table, verdict, JSON, traces.
#include "app/replay_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "app/host_relaunch.h"
#include "backend/backend_factory.h"
#include "backend/replay_runtime.h"
#include "cli/number_checks.h"
#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "harness/progress.h"
#include "harness/signal_notice.h"
#include "io/chrome_trace_text.h"
#include "io/plan_io.h"
#include "io/replay_io.h"
#include "launch/launch_env.h"
#include "launch/mpirun_relaunch.h"
#include "launch/world.h"
#include "replay/plan_jobs.h"
#include "replay/replay.h"
#include "report/replay_table_printer.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"
#include "service/plan_replayer.h"
#include "service/replay_prediction.h"
#include "sim/compute_model.h"
#include "sim/layer_gemms.h"

namespace pipebench {
namespace {

class ReplayCommand final : public Subcommand {
 public:
  std::string name() const override { return "replay"; }
  std::string summary() const override {
    return "run the plan's schedules for real and compare them with the prediction";
  }
  bool needs_world() const override { return true; }

  void add_options(CLI::App& sub) override {
    sub.add_option("--plan", plan_path_, "the plan (pipebench plan --json)")->required();
    sub.add_option("--schedule", o_.schedule, schedule_flag_help())->capture_default_str();
    sub.add_option("--schedule-file", schedule_file_,
                   "also this schedule: per-rank actions in PyTorch pipelining's CSV (0F3,1I2,0W1,...)");
    // The ranges of predict's flags (predict_command.cc), so that both commands take the same values.
    sub.add_option("--fwd-ms-per-layer", o_.compute.fwd_ms_per_layer, "forward time per layer and microbatch")
        ->check(checks::positive(checks::kMaxLayerMs));
    sub.add_option("--bwd-ms-per-layer", o_.compute.bwd_ms_per_layer, "backward time (default 2x forward)")
        ->check(checks::positive(checks::kMaxLayerMs));
    sub.add_option("--w-share", o_.compute.w_share,
                   "W's part of the backward where a schedule splits B and W (measured with --measure-compute)")
        ->check(checks::in_range(0, 1))
        ->capture_default_str()
        ->each([this](const std::string&) { w_share_given_ = true; });
    sub.add_option("--tflops", o_.compute.tflops, "achieved TFLOP/s per GPU for the FLOPs model")
        ->check(checks::in_range(checks::kMinTflops, checks::kMaxTflops));
    sub.add_flag("--measure-compute", measure_compute_, "time the layer's GEMMs with cuBLAS on this rank's GPU");
    sub.add_option("--compute", compute_kind_, "GPU compute: spin (timer kernel) or gemm (cuBLAS)")
        ->capture_default_str();
    sub.add_option("--compute-sms", compute_sms_, "spin kernel: SMs to occupy (0: all)")->capture_default_str();
    sub.add_option("--optimizer-ms", o_.compute.optimizer_ms, "optimizer step time")
        ->check(checks::non_negative(checks::kMaxLayerMs));
    sub.add_option("--iterations", o_.iterations, "timed iterations after one warm-up")->capture_default_str();
    sub.add_option("--table", table_path_, "costs for the prediction: a results JSON (skips timing the messages)");
    sub.add_flag("--no-predict", no_predict_, "replay only");
    sub.add_option("--json", json_path_, "write pipebench.replay/1 here (after every iteration)");
    sub.add_option("--trace", trace_dir_, "Chrome traces of the measured timelines, one file per schedule");
    // The range of bench's and run's -T (cli/number_checks.h): 1e300 s would overflow a clock.
    sub.add_option("-T,--timeout", o_.timeout_s, "seconds one iteration may take (default: a few times the prediction)")
        ->check(checks::non_negative(checks::kMaxTimeoutSeconds));
    sub.add_option("--backend", backend_, "nccl, mpi or auto (nccl when every rank sees a GPU)")->capture_default_str();
    sub.add_flag("--quiet", quiet_, "no progress lines on stderr");
  }

  void finish(const CLI::App& sub, const CommandExtras&) override {
    const int sources = (o_.compute.fwd_ms_per_layer > 0) + (o_.compute.tflops > 0) + (measure_compute_ ? 1 : 0);
    if (sources > 1) throw UsageError("give one of --fwd-ms-per-layer, --tflops and --measure-compute");
    if (sources == 0) throw UsageError("compute time: give --fwd-ms-per-layer MS, --tflops T or --measure-compute");
    if (sub.count("--bwd-ms-per-layer") && o_.compute.fwd_ms_per_layer <= 0) {
      throw UsageError("--bwd-ms-per-layer needs --fwd-ms-per-layer");
    }
    if (o_.iterations < 1 || o_.iterations > kMaxReplayIterations) {
      throw UsageError("--iterations " + std::to_string(o_.iterations) + ": must be 1 to " +
                       std::to_string(kMaxReplayIterations));
    }
    if (compute_kind_ != "spin" && compute_kind_ != "gemm")
      throw UsageError("--compute " + compute_kind_ + ": spin or gemm");
    if (compute_sms_ < 0) throw UsageError("--compute-sms " + std::to_string(compute_sms_) + ": must be >= 0");
    if (!table_path_.empty() && no_predict_) throw UsageError("--table and --no-predict exclude each other");
    // Made now, so that a --trace that can hold no file is told before the replay runs, not after it.
    if (!trace_dir_.empty()) make_output_folder("--trace", trace_dir_);
    // A regular file or a new path in a folder that exists (--trace's, it may be): told before the replay runs.
    if (!json_path_.empty()) require_output_in_folder("--json", json_path_);
    require_distinct_files(input_files(), {{"--json", json_path_}});
    kind_ = parse_backend_kind("--backend", backend_);
    gpu_flags_ = sub.count("--compute") > 0 || sub.count("--compute-sms") > 0;
  }

  void before_world(const std::vector<std::string>& args) override;
  void check_launch(bool tcp_rendezvous) const override { require_backend_for_launch(kind_, tcp_rendezvous); }
  int run(const World* world) override;

 private:
  void write_traces(const ReplayResult& r) const;
  // What a replay stopped by a signal kept, for its line (harness/signal_notice.h).
  [[nodiscard]] std::string kept_when_stopped() const {
    return (json_path_.empty() ? std::string("no --json was given")
                               : "every finished iteration is in " + json_path_ + " (\"complete\": false)") +
           "; mpirun ends every rank with SIGTERM once one of them ends";
  }
  // The schedules to replay, counted. A bad schedule or compute fails here, before any timing; so does a
  // trace file that would replace an input.
  std::int64_t check_schedules(const Plan& plan, const World& world) const {
    const PlanJobs planned = plan_jobs(plan, o_.compute, world.rank(), o_.schedule, o_.schedule_files);
    if (!trace_dir_.empty()) {
      std::vector<FileArg> traces;
      for (const auto& job : planned.jobs) traces.push_back({"--trace", trace_path(job.id)});
      require_distinct_files(input_files(), traces);
    }
    return static_cast<std::int64_t>(planned.jobs.size());
  }
  // predict writes trace-NAME-vV.json: the same names, prefixed.
  std::string trace_path(const ScheduleId& id) const { return trace_dir_ + "/replay-" + id.file_stem() + ".json"; }
  std::vector<FileArg> input_files() const {
    return {{"--plan", plan_path_}, {"--table", table_path_}, {"--schedule-file", schedule_file_}};
  }

  std::string plan_path_, table_path_, json_path_, trace_dir_, backend_ = "auto", compute_kind_ = "spin";
  std::string schedule_file_;
  bool measure_compute_ = false, w_share_given_ = false, no_predict_ = false, gpu_flags_ = false, quiet_ = false;
  int compute_sms_ = 0;
  BackendKind kind_ = BackendKind::kAuto;
  ReplayOptions o_;
};

// A plain `pipebench replay` starts itself under mpirun with the plan's world W (> 1), as `run` does:
// one rank per GPU on one node with at least W GPUs; W host ranks on the MPI backend where no GPU will
// be used (--backend mpi, or none visible). Anything unusual (no plan, fewer GPUs, no mpirun) is left
// to run(), which reports it as one line.
void ReplayCommand::before_world(const std::vector<std::string>& args) {
  if (started_by_launcher() || !built_with_mpi()) return;
  int plan_world = 0;
  try {
    plan_world = load_plan("--plan", plan_path_).layout.world;
  } catch (const std::exception&) {
    return;
  }
  if (plan_world <= 1) return;
  std::string why;
  const int gpus = kind_ == BackendKind::kMpi ? 0 : visible_gpus(&why);
  // The ranks' own line when stopped (SignalNotice), or this process's where mpirun ended before passing it on.
  const auto stopped = [this](int sig) { return signal_notice_text("replay", sig, kept_when_stopped()); };
  // Returns only without mpirun or with nccl.
  if (gpus == 0) relaunch_on_host_ranks(kind_, plan_world, args, StopForwarding::kTerminate, stopped);
  if (gpus < plan_world) return;
  const std::string mpirun = find_in_path("mpirun");
  if (mpirun.empty()) return;
  std::printf("# %d GPUs visible: starting the plan's %d ranks under mpirun (mpirun -np %d)\n", gpus, plan_world,
              plan_world);
  std::fflush(stdout);
  run_under_mpirun(mpirun, plan_world, args, StopForwarding::kTerminate, stopped);
}

int ReplayCommand::run(const World* wp) {
  const World& world = *wp;
  const Plan plan = load_plan("--plan", plan_path_);
  const int plan_world = plan.layout.world;
  if (plan_world != world.size()) {
    throw UsageError("--plan " + plan_path_ + ": the plan's world is " + std::to_string(plan_world) + " ranks but " +
                     std::to_string(world.size()) + " were launched (mpirun -np " + std::to_string(plan_world) + ")");
  }
  const BackendKind kind = resolve_backend(kind_, world);
  if (kind == BackendKind::kMpi && gpu_flags_) {
    throw UsageError(
        "--compute/--compute-sms: GPU compute needs the NCCL backend (MPI computes by sleeping on the host)");
  }
  if (!schedule_file_.empty()) {
    o_.schedule_files = {
        load_schedule_file("--schedule-file", schedule_file_, plan.layout.pp, plan.layout.microbatches)};
  }
  if (measure_compute_) measure_replay_compute(world, plan, o_.compute, w_share_given_);
  const std::int64_t schedules = check_schedules(plan, world);
  o_.keep_timeline = !trace_dir_.empty();
  ReplayComputeOptions rco;
  rco.kind = compute_kind_;
  rco.compute_sms = compute_sms_;
  if (compute_kind_ == "gemm" && kind != BackendKind::kMpi) {
    rco.layer_gemms = layer_forward_gemms(plan_layer_dims(plan));
    rco.gemm_dtype = plan_gemm_dtype(plan);
    rco.layer_fwd_ns = std::llround(make_compute_model(plan, o_.compute).fwd_ms_per_layer * 1e6);
  }
  // One backend for the timing of the messages and the replay: the replay issues its calls on it and on
  // its splits, as bench --plan does. The replayer (its runtime) before the messages are timed.
  auto backend = make_backend(kind, world, 1);
  PlanReplayer replayer(world, *backend, rco);
  const auto predicted =
      no_predict_ ? nullptr
                  : replay_prediction(world, plan, *backend, o_, {plan_path_, table_path_, json_path_, quiet_});
  std::unique_ptr<Progress> progress;
  if (world.rank() == 0 && !quiet_) {
    progress = std::make_unique<Progress>(std::cerr, Progress::stderr_is_tty(), "iteration", schedules * o_.iterations);
  }
  std::int64_t iterations_done = 0;
  // A stopped replay cannot finish its iteration (the ranks wait in each other's calls): rank 0 says so.
  std::optional<SignalNotice> notice;
  if (world.rank() == 0) notice.emplace("replay", kept_when_stopped());
  const ReplayResult r =
      replayer.replay(plan, o_, predicted.get(), json_path_, plan_path_, [&](const ReplayResult& so_far) {
        if (progress) progress->update(++iterations_done, "schedule " + so_far.schedules.back().id.key());
      });
  notice.reset();
  progress.reset();  // the terminal line is erased before the table
  if (world.rank() == 0) {
    const bool banded = predicted && predicted->band > 0;
    print_replay_report(std::cout, r, plan_path_, banded ? predicted->band : kDefaultSpeedupBand,
                        banded ? predicted->band_source : "default");
    write_traces(r);
  }
  return 0;
}

void ReplayCommand::write_traces(const ReplayResult& r) const {
  if (trace_dir_.empty()) return;
  make_output_folder("--trace", trace_dir_);
  for (const auto& s : r.schedules) {
    (void)write_chrome_trace("", trace_path(s.id), s);
  }
}

}  // namespace

std::unique_ptr<Subcommand> make_replay_command() { return std::make_unique<ReplayCommand>(); }

}  // namespace pipebench
