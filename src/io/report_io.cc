// SPDX-License-Identifier: Apache-2.0
#include "io/report_io.h"

#include <cmath>

#include "core/environment.h"
#include "core/version.h"
#include "io/input_views.h"
#include "io/provenance_io.h"

namespace pipebench {

namespace {

nlohmann::json number_or_null(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json point_json(const PointOutcome& p) {
  nlohmann::json j = {{"op", p.op},
                      {"size_bytes", p.size_bytes},
                      {"nranks", p.nranks},
                      {"ranks", p.ranks},
                      {"in_place", p.in_place},
                      {"host", p.host},
                      {"value", number_or_null(p.value)},
                      {"limit", number_or_null(p.limit)},
                      {"status", status_name(p.status)}};
  if (!p.note.empty()) j["note"] = p.note;
  return j;
}

nlohmann::json inputs_json(const ReportInputs& in) {
  nlohmann::json j = nlohmann::json::array();
  auto add = [&](const std::string& kind, const std::string& path, const std::string& host,
                 const std::string& command_line) {
    nlohmann::json e = {{"kind", kind}, {"path", path}};
    if (!host.empty()) e["host"] = host;
    if (!command_line.empty()) e["command_line"] = redacted_value(command_line);  // as in report.html
    j.push_back(std::move(e));
  };
  for (const auto& r : in.results) add("results", r.path, host_of(r), r.doc.command_line);
  for (const auto& r : in.baseline) add("baseline", r.path, host_of(r), r.doc.command_line);
  for (const auto& t : in.topologies) add("topology", t.path, t.doc.host, t.doc.command_line);
  for (const auto& p : in.predictions) add("prediction", p.path, "", p.command_line);
  for (const auto& p : in.replays) add("replay", p.path, "", p.command_line);
  for (const auto& t : in.traces) add("trace", t.path, "", t.command_line);
  for (const auto& p : in.skipped) add("skipped", p, "", "");
  return j;
}

}  // namespace

nlohmann::json report_to_json(const ReportInputs& inputs, const ReportOutcome& outcome) {
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& r : outcome.rules) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points) points.push_back(point_json(p));
    rules.push_back({{"name", r.name},
                     {"metric", r.metric},
                     {"comparison", r.comparison},
                     {"severity", r.severity == Status::kWarn ? "warn" : "fail"},
                     {"status", rule_state_name(r)},
                     {"applied", r.applied},
                     {"message", r.message},
                     {"checked", r.checked},
                     {"points", std::move(points)},
                     {"points_left_out", r.points_left_out}});
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : outcome.hosts) {
    hosts.push_back({{"host", h.host},
                     {"points", h.points},
                     {"outliers", h.outliers},
                     {"worst_mads", h.worst_mads},
                     {"worst_point", h.worst_point}});
  }
  nlohmann::json doc = {
      {"schema", kReportSchema},
      {"tool_version", kToolVersion},
      {"title", inputs.title},
      {"verdict", status_name(outcome.verdict)},
      {"verdict_line", verdict_line(outcome)},
      {"counts",
       {{"failed", outcome.failed},
        {"warned", outcome.warned},
        {"passed", outcome.passed},
        {"not_applied", outcome.not_applied}}},
      {"rules", std::move(rules)},
      {"node_diagnosis", {{"metric", outcome.diagnosis_metric}, {"mad_k", inputs.mad_k}, {"hosts", hosts}}},
      {"inputs", inputs_json(inputs)}};
  add_provenance(doc);
  return doc;
}

}  // namespace pipebench
