// SPDX-License-Identifier: Apache-2.0
// The trace subcommand.
#include "app/trace_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/distinct_files.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "core/word_lists.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/replay_io.h"
#include "io/trace_io.h"
#include "trace/file_format.h"
#include "trace/job_check.h"
#include "trace/job_chrome.h"
#include "trace/job_json.h"
#include "trace/job_reader.h"
#include "trace/job_report.h"
#include "trace/kineto_reader.h"
#include "trace/nsys_reader.h"
#include "trace/plan_check.h"
#include "trace/trace_report.h"

namespace pipebench {

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

namespace {

// The job view: several profiles (or a directory of them), --compare, --replay.
bool job_view(const TraceCommandOptions& o) {
  std::error_code ec;  // a path that cannot be looked at is no directory
  return o.paths.size() > 1 || (o.paths.size() == 1 && std::filesystem::is_directory(o.paths[0], ec)) ||
         !o.compare_paths.empty() || !o.replay_path.empty();
}

void check_job_flags(const TraceCommandOptions& o) {
  if (!o.plan_path.empty()) {
    throw UsageError("--plan: checks one profile; for a whole job use --prediction/--replay (per rank)");
  }
  if (!o.activity.empty() || !o.nvtx_prefixes.empty()) {
    throw UsageError(std::string(!o.activity.empty() ? "--activity" : "--nvtx-prefix") +
                     ": applies to the one-profile --chrome-trace of an nsys export only");
  }
  if (!o.schedule.empty() && o.prediction_path.empty() && o.replay_path.empty()) {
    throw UsageError("--schedule: needs --prediction or --replay");
  }
  if (o.tolerance >= 0 && o.prediction_path.empty() && o.replay_path.empty()) {
    throw UsageError("--tolerance: needs --prediction or --replay");
  }
  if (!o.json_path.empty()) require_output_path("--json", o.json_path);
  if (!o.chrome_trace_path.empty()) require_output_path("--chrome-trace", o.chrome_trace_path);
}

nlohmann::json job_json(const JobProfile& job, const JobComparison* compare, const ModelCheck* model) {
  TraceFile file = trace_file(job.ranks[0].profile, nullptr);
  file.path.clear();
  for (const auto& in : job.inputs) file.path += (file.path.empty() ? "" : " ") + in;
  file.devices.clear();
  file.kernel_rows = file.skipped_rows = 0;
  file.rank.reset();
  for (const auto& r : job.ranks) {
    for (auto& d : trace_file(r.profile, nullptr).devices) {
      if (d.device != r.device) continue;
      d.rank = r.rank;
      file.devices.push_back(std::move(d));
    }
    file.kernel_rows += r.profile.kernel_rows;
    file.skipped_rows += r.profile.skipped_rows;
    if (file.damage.empty() && !r.profile.damage.empty()) file.damage = r.profile.path + ": " + r.profile.damage;
  }
  nlohmann::json doc = trace_to_json(file);
  doc["ranks"] = job_ranks_to_json(job);
  doc["alignment"] = job_alignment_to_json(job);
  if (compare != nullptr) doc["compare"] = job_compare_to_json(*compare);
  if (model != nullptr) doc["model_check"] = model_check_to_json(*model);
  return doc;
}

// --prediction FILE, when given.
std::optional<Prediction> load_prediction(const std::string& path) {
  if (path.empty()) return std::nullopt;
  return prediction_from_json(read_json_file("--prediction", path), "--prediction " + path);
}

// job_files, compare_files: the profiles of the job and of --compare, folders listed once (run_trace_command's
// same-file check lists them; listing them again named each skipped entry twice).
int run_job(const TraceCommandOptions& o, const std::vector<std::string>& job_files,
            const std::vector<std::string>& compare_files) {
  check_job_flags(o);
  JobReadOptions ro;
  ro.trace.by_nvtx = o.by == "nvtx";
  ro.trace.demangled = o.demangled;
  ro.first_rank = o.first_rank;
  ro.iterations = o.iterations;
  ro.align = o.align;
  const std::optional<Prediction> prediction = load_prediction(o.prediction_path);
  std::optional<ReplayResult> replay;
  if (!o.replay_path.empty()) replay = replay_from_json(read_json_file("--replay", o.replay_path), "--replay");
  JobProfile job = read_job(job_files, ro);
  job.inputs = o.paths;  // named by the inputs as given (a folder, not the files it holds)
  std::optional<JobComparison> compare;
  if (!o.compare_paths.empty()) {
    JobReadOptions co = ro;
    co.flag = "--compare";
    JobProfile other = read_job(compare_files, co);
    other.inputs = o.compare_paths;
    compare = compare_jobs(job, other);
  }
  std::optional<ModelCheck> model;
  if (prediction || replay) {
    model =
        check_against_model(job, prediction ? &*prediction : nullptr, o.prediction_path, replay ? &*replay : nullptr,
                            o.replay_path, o.schedule, o.tolerance >= 0 ? o.tolerance : kDefaultModelTolerance);
  }
  print_job_report(std::cout, job, compare ? &*compare : nullptr, model ? &*model : nullptr, o.top_rows);
  if (!o.json_path.empty()) {
    write_output_file("", o.json_path,
                      json_file_text(job_json(job, compare ? &*compare : nullptr, model ? &*model : nullptr), 2));
    std::cout << "# wrote " << o.json_path << "\n";
  }
  if (!o.chrome_trace_path.empty()) {
    const auto events = write_job_chrome_trace(o.chrome_trace_path, job);
    std::cout << "# wrote " << o.chrome_trace_path << " (Chrome trace, " << events
              << " events, one process per rank)\n";
  }
  std::cout.flush();
  if (job.damaged()) {
    std::cerr << "pipebench: trace: a profile is damaged (see the report; it holds what was read)\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  if (model && model->mismatches > 0) {
    std::cerr << "pipebench: trace: " << model->mismatches << " rank" << (model->mismatches == 1 ? "" : "s")
              << " beyond --tolerance " << model->tolerance << " of the model (schedule " << model->schedule
              << "; see the report); exit status 3\n";
    return static_cast<int>(ExitCode::kWrongData);
  }
  return 0;
}

// One profile: the report per device, and the check against --plan.
int run_one_profile(const TraceCommandOptions& o) {
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
  if (!o.plan_path.empty()) plan = load_plan("--plan", o.plan_path);
  const std::optional<Prediction> prediction = load_prediction(o.prediction_path);

  if (!o.json_path.empty()) {
    // A --json that cannot be written fails now, as bad input, not after a long read.
    require_output_path("--json", o.json_path);
    const std::string probe = o.json_path + ".tmp";
    if (!std::ofstream(probe)) throw UsageError("--json " + o.json_path + ": cannot be written");
    std::remove(probe.c_str());
  }

  const TraceFormat format = detect_trace_format(o.path);
  if (format != TraceFormat::kSqlite && !o.chrome_trace_path.empty()) {
    throw UsageError("--chrome-trace: converts Nsight Systems SQLite exports; " + o.path +
                     " is JSON (a PyTorch profiler trace is a Chrome trace already)");
  }
  if (format != TraceFormat::kSqlite && o.demangled)
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
    check = check_against_plan(profile, *plan, prediction ? &*prediction : nullptr, po);
  }
  print_trace_report(std::cout, profile, check ? &*check : nullptr, o.top_rows);
  if (!o.json_path.empty()) {
    const TraceFile file = trace_file(profile, check ? &*check : nullptr);
    write_output_file("", o.json_path, json_file_text(trace_to_json(file), 2));
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
  // A profile that does not match its plan is a failed check, like wrong data (src/app/README.md, Exit status).
  if (check && check->mismatches > 0) {
    std::cerr << "pipebench: " << o.path << ": " << check->mismatches << " row" << (check->mismatches == 1 ? "" : "s")
              << " of the profile do not match --plan " << o.plan_path << " (schedule " << check->schedule.label()
              << "; see the report); exit status 3\n";
    return static_cast<int>(ExitCode::kWrongData);
  }
  return 0;
}

// Returns the exit status: 0, 2 when a profile was damaged (after reporting what was read), 3 when the
// profile does not match --plan, or (job view) --prediction/--replay beyond --tolerance.
// Throws UsageError for bad input.
int run_trace_command(const TraceCommandOptions& o_in) {
  TraceCommandOptions o = o_in;
  if (o.path.empty() && o.paths.size() == 1) o.path = o.paths[0];
  const std::vector<FileArg> outputs = {{"--json", o.json_path}, {"--chrome-trace", o.chrome_trace_path}};
  std::vector<FileArg> inputs = {
      {"--plan", o.plan_path}, {"--prediction", o.prediction_path}, {"--replay", o.replay_path}};
  if (job_view(o)) {
    if (o.paths.empty()) o.paths.push_back(o.path);
    // The files a folder holds are inputs too: --json DIR/rank0.json.gz would replace one of them.
    const std::vector<std::string> job = expand_trace_inputs("FILE", o.paths);
    const std::vector<std::string> compare =
        o.compare_paths.empty() ? std::vector<std::string>{} : expand_trace_inputs("--compare", o.compare_paths);
    for (const auto& f : job) inputs.push_back({"FILE", f});
    for (const auto& f : compare) inputs.push_back({"--compare", f});
    require_distinct_files(inputs, outputs);
    // One file given twice would be two ranks of the job.
    std::vector<FileArg> ranks;
    for (const auto& f : job) ranks.push_back({"FILE", f});
    require_distinct_inputs(ranks);
    ranks.clear();
    for (const auto& f : compare) ranks.push_back({"--compare", f});
    require_distinct_inputs(ranks);
    return run_job(o, job, compare);
  }
  inputs.push_back({"FILE", o.path});
  require_distinct_files(inputs, outputs);
  if (!o.replay_path.empty() || o.tolerance >= 0 || o.align != "auto") {
    throw UsageError(std::string(o.tolerance >= 0         ? "--tolerance"
                                 : !o.replay_path.empty() ? "--replay"
                                                          : "--align") +
                     ": applies to a whole job (several profiles, or a directory)");
  }
  return run_one_profile(o);
}

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
  sub.add_option("file", o_.paths,
                 "an Nsight Systems SQLite export or a PyTorch profiler (Kineto) JSON trace (.json.gz too); several, "
                 "or a directory: one per rank of a job")
      ->required();
  sub.add_option("--compare", o_.compare_paths,
                 "job view: another run's profiles (DIR|FILE...), per rank side by side");
  sub.add_option("--replay", o_.replay_path, "job view: measured against this replay (pipebench replay --json)");
  sub.add_option("--tolerance", o_.tolerance,
                 "job view: allowed |measured - model| of the communication share (absolute) and of the iteration "
                 "time (relative) (default 0.10)")
      ->check(CLI::Range(0.0, 10.0));
  sub.add_option("--align", o_.align,
                 "job view: put the ranks on one clock by the recorded wall clocks (epoch), the end of the first "
                 "collective every rank ran (collective), or auto: epoch when every profile has one")
      ->check(CLI::IsMember({"auto", "epoch", "collective"}))
      ->capture_default_str();
  sub.add_option("--by", o_.by, "name rows by kernel, or by the innermost NVTX range that launched them")
      ->check(CLI::IsMember({"kernel", "nvtx"}))
      ->capture_default_str();
  sub.add_flag("--demangled", o_.demangled, "full kernel names (nsys demangledName) instead of base names");
  sub.add_option("--top", o_.top_rows, "rows shown per device (0: all; --json has all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  sub.add_option("--chrome-trace", o_.chrome_trace_path,
                 "convert the nsys export to a Chrome trace here (job view: the merged job, one process per rank)");
  sub.add_option("--activity", o_.activity, "with --chrome-trace: kernel,nvtx,nvtx-kernel,cuda-api (default all)");
  sub.add_option("--nvtx-prefix", nvtx_prefix_,
                 "with --chrome-trace: only NVTX ranges starting with these (comma list)");
  sub.add_option("--plan", o_.plan_path, "hold the profile against this plan (pipebench plan --json)");
  sub.add_option("--prediction", o_.prediction_path,
                 "with --plan, or for a job: the communication share (and iteration time) against this prediction");
  sub.add_option(
      "--schedule", o_.schedule,
      "the schedule that ran (1f1b, interleaved:v2; default: best match with --plan, the only one for a job)");
  sub.add_option("--first-rank", first_rank_,
                 "global rank of the profile's lowest device (default: the trace's, or 0); job view: ranks of files "
                 "that name none")
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
