// SPDX-License-Identifier: Apache-2.0
// The trace subcommand.
#include "app/trace_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/json_file.h"
#include "core/word_lists.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/trace_io.h"
#include "report/results_json.h"
#include "trace/file_format.h"
#include "trace/kineto_reader.h"
#include "trace/nsys_reader.h"
#include "trace/plan_check.h"
#include "trace/trace_report.h"

namespace pipebench {
namespace {}  // namespace

TraceProgressFn trace_progress(std::ostream& out, bool tty, Progress::Clock clock) {
  struct State {
    std::string unit;
    std::unique_ptr<Progress> line;
  };
  auto state = std::make_shared<State>();
  return [state, &out, tty, clock](const std::string& unit, std::int64_t done, std::int64_t total) {
    if (!state->line || unit != state->unit) {  // a new unit (a reader's next phase): a new estimate
      state->line.reset();
      state->line = std::make_unique<Progress>(out, tty, unit, total, clock);
      state->unit = unit;
    }
    state->line->update(done, "");
  };
}

int run_trace_command(const TraceCommandOptions& o) {
  if (o.by != "kernel" && o.by != "nvtx") throw UsageError("--by " + o.by + ": choose kernel or nvtx");
  if (o.chrome_trace_path.empty() && (!o.activity.empty() || !o.nvtx_prefixes.empty())) {
    throw UsageError(std::string(!o.activity.empty() ? "--activity" : "--nvtx-prefix") +
                     ": applies to --chrome-trace only");
  }
  if (o.plan_path.empty() && (!o.prediction_path.empty() || !o.schedule.empty() || o.first_rank || o.iterations > 0)) {
    throw UsageError(std::string(!o.prediction_path.empty() ? "--prediction"
                                 : !o.schedule.empty()      ? "--schedule"
                                 : o.first_rank             ? "--first-rank"
                                                            : "--iterations") +
                     ": needs --plan");
  }
  TraceOptions options;
  options.by_nvtx = o.by == "nvtx";
  options.demangled = o.demangled;
  options.chrome_trace_path = o.chrome_trace_path;
  if (!o.activity.empty()) options.activities = parse_activities("--activity", o.activity);
  options.nvtx_prefixes = o.nvtx_prefixes;
  if (!o.quiet) options.progress = trace_progress(std::cerr, Progress::stderr_is_tty());

  // Read the plan and prediction before the profile: a bad flag fails at once, not after a long read.
  std::optional<Plan> plan;
  std::optional<PredictionFile> prediction;
  if (!o.plan_path.empty()) plan = load_plan("--plan", o.plan_path);
  if (!o.prediction_path.empty()) {
    prediction =
        prediction_from_json(read_json_file("--prediction", o.prediction_path), "--prediction " + o.prediction_path);
  }

  if (!o.json_path.empty()) {
    // A --json that cannot be written fails now, as bad input, not after a long read.
    require_output_path("--json", o.json_path);
    const std::string probe = o.json_path + ".tmp";
    if (!std::ofstream(probe)) throw UsageError("--json " + o.json_path + ": cannot be written");
    std::remove(probe.c_str());
  }

  const TraceFormat format = detect_trace_format(o.path);
  if (format == TraceFormat::kJson && !o.chrome_trace_path.empty()) {
    throw UsageError("--chrome-trace: converts Nsight Systems SQLite exports; " + o.path +
                     " is JSON (a PyTorch profiler trace is a Chrome trace already)");
  }
  if (format == TraceFormat::kJson && o.demangled)
    throw UsageError("--demangled: applies to Nsight Systems exports only");
  TraceProfile profile =
      format == TraceFormat::kSqlite ? read_nsys_sqlite(o.path, options) : read_kineto_json(o.path, options);
  options.progress = nullptr;  // erases a terminal progress line before the report

  if (profile.kernel_rows == 0) {
    if (!profile.damage.empty())
      throw UsageError(o.path + ": damaged before any kernel could be read (" + profile.damage + ")");
    if (profile.skipped_rows > 0) {
      throw UsageError(o.path + ": no kernel row could be read (" + std::to_string(profile.skipped_rows) +
                       " skipped: " + profile.skipped_by_reason.begin()->first + ")");
    }
    throw UsageError(o.path + (format == TraceFormat::kSqlite
                                   ? ": the export holds no kernel rows"
                                   : ": a trace without GPU kernel events (\"cat\": \"kernel\"); "
                                     "record it with torch.profiler and ProfilerActivity.CUDA"));
  }

  std::optional<PlanCheck> check;
  if (plan) {
    PlanCheckOptions po;
    po.schedule = o.schedule;
    po.first_rank = o.first_rank;
    po.iterations = o.iterations;
    po.plan_label = o.plan_path;
    po.prediction_label = o.prediction_path;
    check = check_against_plan(profile, *plan, prediction ? &*prediction : nullptr, po);
  }
  print_trace_report(std::cout, profile, check ? &*check : nullptr, o.top_rows);
  if (!o.json_path.empty()) {
    std::map<int, int> device_ranks;
    if (check) {
      for (const auto& r : check->ranks) device_ranks[r.device] = r.rank;
    }
    const TraceFile file = trace_file(profile, device_ranks,
                                      check ? std::optional<nlohmann::json>(plan_check_to_json(*check)) : std::nullopt);
    write_file_atomically(o.json_path, trace_to_json(file).dump(2) + "\n");
    std::cout << "# wrote " << o.json_path << "\n";
  }
  if (!o.chrome_trace_path.empty()) std::cout << "# wrote " << o.chrome_trace_path << " (Chrome trace)\n";
  std::cout.flush();
  if (profile.skipped_rows > 0) {
    std::cerr << "pipebench: " << o.path << ": " << profile.skipped_rows << " rows skipped (see the report)\n";
  }
  if (!profile.damage.empty()) {
    std::cerr << "pipebench: " << o.path << ": damaged: " << profile.damage << " (the report holds what was read)\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  // A profile that does not match its plan is a failed check, like wrong data (README: Exit status).
  if (check && check->mismatches > 0) {
    std::cerr << "pipebench: " << o.path << ": " << check->mismatches << " row" << (check->mismatches == 1 ? "" : "s")
              << " of the profile do not match --plan " << o.plan_path << " (schedule " << check->schedule
              << (check->v > 1 ? " v=" + std::to_string(check->v) : "") << "; see the report); exit status 3\n";
    return static_cast<int>(ExitCode::kWrongData);
  }
  return 0;
}

namespace {

class TraceCommand final : public Subcommand {
 public:
  std::string name() const override { return "trace"; }
  std::string summary() const override {
    return "what a profiled run spent per device and per collective (nsys SQLite or PyTorch profiler JSON)";
  }
  void add_options(CLI::App& sub) override;
  void finish(const CLI::App& /*sub*/, const CommandExtras& /*extras*/) override {
    if (first_rank_ >= 0) o_.first_rank = first_rank_;
    for (auto& prefix : split_list(nvtx_prefix_)) {
      if (!prefix.empty()) o_.nvtx_prefixes.push_back(std::move(prefix));
    }
  }
  int run(const World* /*world*/) override { return run_trace_command(o_); }

 private:
  TraceCommandOptions o_;
  int first_rank_ = -1;
  std::string nvtx_prefix_;
};

void TraceCommand::add_options(CLI::App& sub) {
  sub.add_option("file", o_.path, "an Nsight Systems SQLite export or a PyTorch profiler (Kineto) JSON trace")
      ->required();
  sub.add_option("--by", o_.by, "name rows by kernel, or by the innermost NVTX range that launched them")
      ->check(CLI::IsMember({"kernel", "nvtx"}))
      ->capture_default_str();
  sub.add_flag("--demangled", o_.demangled, "full kernel names (nsys demangledName) instead of base names");
  sub.add_option("--top", o_.top_rows, "rows shown per device (0: all; --json has all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  sub.add_option("--chrome-trace", o_.chrome_trace_path, "convert the nsys export to a Chrome trace here");
  sub.add_option("--activity", o_.activity, "with --chrome-trace: kernel,nvtx,nvtx-kernel,cuda-api (default all)");
  sub.add_option("--nvtx-prefix", nvtx_prefix_,
                 "with --chrome-trace: only NVTX ranges starting with these (comma list)");
  sub.add_option("--plan", o_.plan_path, "hold the profile against this plan (pipebench plan --json)");
  sub.add_option("--prediction", o_.prediction_path, "and its communication share against this prediction");
  sub.add_option("--schedule", o_.schedule, "the plan's schedule that ran (1f1b, interleaved:v2; default: best match)");
  sub.add_option("--first-rank", first_rank_, "global rank of the profile's lowest device (default: the trace's, or 0)")
      ->check(CLI::Range(0, 1 << 24));
  sub.add_option("--iterations", o_.iterations,
                 "training iterations in the profile (default: ProfilerStep count, else estimated)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  sub.add_option("--json", o_.json_path, "write the pipebench.trace/1 JSON here");
  sub.add_flag("--quiet", o_.quiet, "no progress lines on stderr");
}

}  // namespace

std::unique_ptr<Subcommand> make_trace_command() { return std::make_unique<TraceCommand>(); }

}  // namespace pipebench
