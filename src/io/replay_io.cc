// SPDX-License-Identifier: Apache-2.0
// pipebench.replay/1 writer and reader.
#include "io/replay_io.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/json_file.h"
#include "core/printf_string.h"
#include "core/version.h"
#include "io/prediction_io.h"
#include "io/provenance_io.h"

namespace pipebench {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> read_optional(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<double>();
}

// The world sizes a plan may have (megatron/layout.h's kMaxWorldSize).
constexpr int kMaxReplayWorld = 1 << 20;

double finite(const nlohmann::json& j, const char* key, const std::string& what) {
  const double v = j.at(key).get<double>();
  if (!std::isfinite(v) || v < 0) throw UsageError(what + ": " + key + " must be a finite number >= 0");
  return v;
}

// "error" is derived ((predicted - measured) / measured, as the writer computes it) but a reader may take it
// as it is: it must be null without a prediction and match the two times otherwise.
void check_error(const nlohmann::json& s, const ScheduleReplay& out, const std::string& what) {
  const std::optional<double> error = read_optional(s, "error");
  if (!error) return;
  const bool derived = out.predicted_ms && out.median_ms > 0;
  const double expected = derived ? (*out.predicted_ms - out.median_ms) / out.median_ms : 0;
  if (!std::isfinite(*error) || !derived || std::fabs(*error - expected) > 1e-6 * std::max(1.0, std::fabs(expected))) {
    throw UsageError(what + ": schedule " + out.id.key() + ": error " + s.at("error").dump() +
                     " is not (predicted_iteration_ms - measured_iteration_ms) / measured_iteration_ms" +
                     (derived ? " (" + printf_string("%.6g", expected) + ")" : " (no prediction: null)"));
  }
}

// Each schedule holds one time per iteration, fewer only where the file names it in schedules_incomplete
// (a replay that stopped). Before, an empty or shortened iterations_ms passed as a schedule measured in full.
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

ReplayResult replay_from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object() || j.value("schema", "") != kReplaySchema) {
    throw UsageError(what + ": not a " + std::string(kReplaySchema) + " file (schema " +
                     (j.is_object() && j.contains("schema") ? j["schema"].dump() : "missing") + ")");
  }
  try {
    ReplayResult r;
    r.world = j.at("world").get<int>();
    if (r.world < 1 || r.world > kMaxReplayWorld) {
      throw UsageError(what + ": world " + std::to_string(r.world) + " is outside [1, " +
                       std::to_string(kMaxReplayWorld) + "]");
    }
    r.backend = j.at("backend").get<std::string>();
    r.compute = j.at("compute").get<std::string>();
    r.iterations = j.at("iterations").get<int>();
    if (r.iterations < 1) throw UsageError(what + ": iterations " + std::to_string(r.iterations) + " is below 1");
    for (const auto& s : j.at("schedules")) {
      ScheduleReplay out;
      out.id.name = s.at("name").get<std::string>();
      out.id.v = s.at("v").get<int>();
      if (const std::string problem = schedule_id_problem(out.id.name, out.id.v); !problem.empty())
        throw UsageError(what + ": " + problem);
      out.reference = s.value("reference", false);
      // Files written before it was recorded ran every schedule with a barrier before each iteration.
      const std::string rule = s.value("step_rule", std::string(step_rule_name(StepRule::kSynchronous)));
      if (rule == step_rule_name(StepRule::kPostValidation)) {
        out.step_rule = StepRule::kPostValidation;
      } else if (rule != step_rule_name(StepRule::kSynchronous)) {
        throw UsageError(what + ": step_rule '" + rule + "' is neither \"" + step_rule_name(StepRule::kSynchronous) +
                         "\" nor \"" + step_rule_name(StepRule::kPostValidation) + "\"");
      }
      out.iteration_ms = s.value("iterations_ms", std::vector<double>{});
      for (const double ms : out.iteration_ms) {
        if (!std::isfinite(ms) || ms < 0) throw UsageError(what + ": iterations_ms must be finite numbers >= 0");
      }
      out.median_ms = finite(s, "measured_iteration_ms", what);
      out.min_ms = finite(s, "measured_min_ms", what);
      out.max_ms = finite(s, "measured_max_ms", what);
      out.predicted_ms = read_optional(s, "predicted_iteration_ms");
      check_error(s, out, what);
      for (const auto& p : s.at("per_rank")) {
        out.per_rank.push_back({p.at("rank").get<int>(), finite(p, "compute_ms", what), finite(p, "comm_busy_ms", what),
                                finite(p, "idle_ms", what), finite(p, "comm_share", what),
                                read_optional(p, "predicted_comm_share")});
      }
      r.schedules.push_back(std::move(out));
    }
    // Files from before "complete" was written are complete: they were written once, at the end.
    r.complete = j.value("complete", true);
    r.incomplete = j.value("schedules_incomplete", std::vector<std::string>{});
    if (r.complete && !r.incomplete.empty())
      throw UsageError(what + ": complete is true but schedules_incomplete names " + r.incomplete.front());
    check_iteration_counts(r, what);
    r.measured_fastest = j.at("verdict").at("measured_fastest").get<std::string>();
    const auto& pf = j.at("verdict").at("predicted_fastest");
    r.predicted_fastest = pf.is_null() ? "" : pf.get<std::string>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(what + ": malformed " + std::string(kReplaySchema) + ": " + json_error_text(e));
  }
}

}  // namespace pipebench
