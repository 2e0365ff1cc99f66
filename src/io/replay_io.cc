// SPDX-License-Identifier: Apache-2.0
// pipebench.replay/1 writer and reader.
#include "io/replay_io.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/json_file.h"
#include "core/printf_string.h"
#include "core/version.h"
#include "io/json_fields.h"
#include "io/prediction_io.h"
#include "io/provenance_io.h"

namespace pipebench {
namespace {

using nlohmann::json;

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The world sizes a plan may have (megatron/layout.h's kMaxWorldSize).
constexpr int kMaxReplayWorld = 1 << 20;

// "error" is derived ((predicted - measured) / measured, as the writer computes it) but a reader may take it
// as it is: it must be null without a prediction and match the two times otherwise.
void check_error(const JsonFields& f, const json& s, const std::string& path, const ScheduleReplay& out) {
  if (!s.contains("error") || s["error"].is_null()) return;
  const double error = f.get<double>(s, path, "error");
  const bool derived = out.predicted_ms && out.median_ms > 0;
  const double expected = derived ? (*out.predicted_ms - out.median_ms) / out.median_ms : 0;
  if (!std::isfinite(error) || !derived || std::fabs(error - expected) > 1e-6 * std::max(1.0, std::fabs(expected))) {
    f.fail(JsonFields::join(path, "error"),
           "is " + s.at("error").dump() + ", not (predicted_iteration_ms - measured_iteration_ms) / " +
               "measured_iteration_ms" +
               (derived ? " (" + printf_string("%.6g", expected) + ")" : " (no prediction: null)"));
  }
}

// Each schedule holds one time per iteration, fewer only where the file names it in schedules_incomplete
// (a replay that stopped): an empty or shortened iterations_ms never passes as a schedule measured in full.
void check_iteration_counts(const ReplayResult& r, const std::string& what) {
  const auto want = static_cast<std::size_t>(r.iterations);
  for (std::size_t i = 0; i < r.schedules.size(); ++i) {
    const ScheduleReplay& s = r.schedules[i];
    const std::size_t n = s.iteration_ms.size();
    const bool named = std::find(r.incomplete.begin(), r.incomplete.end(), s.id.key()) != r.incomplete.end();
    if (n > want || (n < want && !named)) {
      throw UsageError(
          printf_string("%s: schedules[%zu] (%s): %zu times in iterations_ms, ", what.c_str(), i, s.id.key().c_str(),
                        n) +
          (n > want ? printf_string("more than its %d iterations", r.iterations)
                    : printf_string("not its %d iterations, and schedules_incomplete does not name it", r.iterations)));
    }
  }
}

// replay/task_drift.h: where the last iteration of one rank drifted from the simulation, task by task.
nlohmann::json drift_to_json(const RankDrift& d) {
  nlohmann::json largest = nlohmann::json::array();
  for (const auto& t : d.largest) largest.push_back({{"task", t.task}, {"kind", t.kind}, {"added_ms", t.added_ms}});
  return {{"rank", d.rank},
          {"pipeline_rank", d.pipeline_rank},
          {"end_drift_ms", d.end_drift_ms},
          {"added_ms_by_kind", d.by_kind_ms},
          {"largest", largest},
          {"tasks_matched", d.matched},
          {"tasks_not_simulated", d.unmatched}};
}

}  // namespace

nlohmann::json replay_to_json(const ReplayResult& r, const std::string& plan_path) {
  nlohmann::json schedules = nlohmann::json::array();
  for (const auto& s : r.schedules) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& p : s.per_rank) {
      ranks.push_back({{"rank", p.rank},
                       {"compute_ms", p.compute_ms},
                       {"comm_busy_ms", p.comm_busy_ms},
                       {"idle_ms", p.idle_ms},
                       {"comm_share", p.comm_share},
                       {"predicted_comm_share", optional_number(p.predicted_comm_share)}});
    }
    nlohmann::json drift = nlohmann::json::array();
    for (const auto& d : s.drift) drift.push_back(drift_to_json(d));
    std::optional<double> error;
    if (s.predicted_ms && s.median_ms > 0) error = (*s.predicted_ms - s.median_ms) / s.median_ms;
    schedules.push_back({{"name", s.id.name},
                         {"v", s.id.v},
                         {"reference", s.reference},
                         {"step_rule", step_rule_name(s.step_rule)},
                         {"iterations_ms", s.iteration_ms},
                         {"measured_iteration_ms", s.median_ms},
                         {"measured_min_ms", s.min_ms},
                         {"measured_max_ms", s.max_ms},
                         {"predicted_iteration_ms", optional_number(s.predicted_ms)},
                         {"error", optional_number(error)},
                         {"per_rank", ranks}});
    if (!drift.empty()) schedules.back()["task_drift"] = drift;
  }
  const bool both = !r.measured_fastest.empty() && !r.predicted_fastest.empty();
  nlohmann::json doc = {
      {"schema", kReplaySchema},
      {"tool_version", kToolVersion},
      {"plan", plan_path},
      {"world", r.world},
      {"backend", r.backend},
      {"compute", r.compute},
      {"iterations", r.iterations},
      {"schedules", schedules},
      {"verdict",
       {{"measured_fastest", r.measured_fastest},
        {"predicted_fastest",
         r.predicted_fastest.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.predicted_fastest)},
        {"agree", both ? nlohmann::json(r.measured_fastest == r.predicted_fastest) : nlohmann::json(nullptr)}}}};
  // The planned schedules without all their iterations (a replay that stopped: the file says so).
  nlohmann::json incomplete = nlohmann::json::array();
  for (const auto& key : r.planned) {
    std::size_t done = 0;
    for (const auto& s : r.schedules) {
      if (s.id.key() == key) done = s.iteration_ms.size();
    }
    if (done < static_cast<std::size_t>(std::max(r.iterations, 0))) incomplete.push_back(key);
  }
  for (const auto& key : r.incomplete) incomplete.push_back(key);  // a file read back, written again
  doc["complete"] = r.complete && incomplete.empty();
  doc["schedules_incomplete"] = std::move(incomplete);
  add_provenance(doc);
  return doc;
}

namespace {

// A schedule's record: its name and v, its times finite and >= 0, "error" the two times' ratio.
ScheduleReplay read_schedule(const JsonFields& f, const json& s, const std::string& path) {
  ScheduleReplay out;
  out.id.name = f.get<std::string>(s, path, "name");
  out.id.v = f.get<int>(s, path, "v");
  if (const std::string problem = schedule_id_problem(out.id.name, out.id.v); !problem.empty()) f.fail(path, problem);
  f.get_if(s, path, "reference", out.reference);
  // Files without it ran every schedule with a barrier before each iteration.
  std::string rule(step_rule_name(StepRule::kSynchronous));
  f.get_if(s, path, "step_rule", rule);
  if (rule == step_rule_name(StepRule::kPostValidation)) {
    out.step_rule = StepRule::kPostValidation;
  } else if (rule != step_rule_name(StepRule::kSynchronous)) {
    f.fail(JsonFields::join(path, "step_rule"), "is '" + rule + "', not \"" + step_rule_name(StepRule::kSynchronous) +
                                                    "\" or \"" + step_rule_name(StepRule::kPostValidation) + "\"");
  }
  f.get_if(s, path, "iterations_ms", out.iteration_ms);
  for (std::size_t i = 0; i < out.iteration_ms.size(); ++i) {
    if (!std::isfinite(out.iteration_ms[i]) || out.iteration_ms[i] < 0)
      f.fail(JsonFields::item(JsonFields::join(path, "iterations_ms"), i), "is not a finite number >= 0");
  }
  out.median_ms = f.get_non_negative<double>(s, path, "measured_iteration_ms");
  out.min_ms = f.get_non_negative<double>(s, path, "measured_min_ms");
  out.max_ms = f.get_non_negative<double>(s, path, "measured_max_ms");
  out.predicted_ms = f.or_null(s, path, "predicted_iteration_ms", &JsonFields::get_double);
  check_error(f, s, path, out);
  out.per_rank = f.list(s, path, "per_rank", [](const JsonFields& f, const json& p, const std::string& rp) {
    return ReplayRankStats{f.get<int>(p, rp, "rank"),
                           f.get_non_negative<double>(p, rp, "compute_ms"),
                           f.get_non_negative<double>(p, rp, "comm_busy_ms"),
                           f.get_non_negative<double>(p, rp, "idle_ms"),
                           f.get_non_negative<double>(p, rp, "comm_share"),
                           f.or_null(p, rp, "predicted_comm_share", &JsonFields::get_double)};
  });
  return out;
}

}  // namespace

ReplayResult replay_from_json(const json& j, const std::string& what) {
  const JsonFields f(what);
  f.require_schema(j, kReplaySchema, "pipebench replay");
  ReplayResult r;
  r.world = f.get_in<int>(j, "", "world", 1, kMaxReplayWorld);
  r.backend = f.get<std::string>(j, "", "backend");
  r.compute = f.get<std::string>(j, "", "compute");
  r.iterations = f.get<int>(j, "", "iterations");
  if (r.iterations < 1) f.fail("iterations", "is below 1");
  r.schedules = f.list(j, "", "schedules", read_schedule);
  // Files without "complete" are complete: they were written once, at the end.
  f.get_if(j, "", "complete", r.complete);
  f.get_if(j, "", "schedules_incomplete", r.incomplete);
  if (r.complete && !r.incomplete.empty())
    f.fail("complete", "is true but schedules_incomplete names " + r.incomplete.front());
  check_iteration_counts(r, what);
  const json& verdict = f.object(j, "", "verdict");
  r.measured_fastest = f.get<std::string>(verdict, "verdict", "measured_fastest");
  r.predicted_fastest = f.or_null(verdict, "verdict", "predicted_fastest", &JsonFields::get_string).value_or("");
  return r;
}

}  // namespace pipebench
