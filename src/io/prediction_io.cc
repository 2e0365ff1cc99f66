// SPDX-License-Identifier: Apache-2.0
// Prediction and simulated-trace JSON.
#include "io/prediction_io.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "core/file_io.h"
#include "core/json_file.h"
#include "io/json_fields.h"
#include "io/provenance_io.h"
#include "megatron/layout.h"

namespace pipebench {

using nlohmann::json;

namespace {

// Times and ratios of a prediction: finite and >= 0, below what the simulator can produce (2097152 tasks
// of at most 1e6 ms each, src/app/README.md "Limits").
constexpr double kMaxIterationMs = 1e13;

SchedulePrediction read_schedule(const JsonFields& f, const json& sj, const std::string& path) {
  if (!sj.is_object()) f.fail(path, "is not an object");
  SchedulePrediction s;
  s.id.name = f.get_string(sj, path, "name");
  s.reference = f.get_bool(sj, path, "reference");
  s.id.v = f.get_int(sj, path, "v");
  if (const std::string problem = schedule_id_problem(s.id.name, s.id.v); !problem.empty()) f.fail(path, problem);
  s.overlap_p2p = f.get_bool(sj, path, "overlap_p2p");
  s.iteration_ms = f.get_double_in(sj, path, "iteration_ms", 0, kMaxIterationMs);
  s.speedup = f.get_double_in(sj, path, "speedup_vs_1f1b", 0, kMaxIterationMs);
  s.bubble_ideal = f.get_double_in(sj, path, "bubble_ideal", 0, kMaxIterationMs);
  s.bubble_sim = f.get_double_in(sj, path, "bubble_sim", 0, kMaxIterationMs);
  if (sj.contains("steady_ms")) {  // absent in files written before it was recorded: iteration_ms stands for it
    s.steady_ms = f.get_double_in(sj, path, "steady_ms", 0, kMaxIterationMs);
    const std::string rule = f.get_string(sj, path, "step_rule");
    if (rule == step_rule_name(StepRule::kPostValidation)) {
      s.step_rule = StepRule::kPostValidation;
    } else if (rule != step_rule_name(StepRule::kSynchronous)) {
      f.fail(JsonFields::join(path, "step_rule"), "is '" + rule + "', not \"" + step_rule_name(StepRule::kSynchronous) +
                                                      "\" or \"" + step_rule_name(StepRule::kPostValidation) + "\"");
    }
  }
  if (sj.contains("dominant_cost")) {
    const std::string dp = JsonFields::join(path, "dominant_cost");
    const json& d = f.object(sj, path, "dominant_cost");
    s.dominant = {f.get_string(d, dp, "what"), f.get_double(d, dp, "ms"), f.get_double(d, dp, "share")};
    if (!(s.dominant.ms >= 0 && s.dominant.ms <= kMaxIterationMs && s.dominant.share >= 0 && s.dominant.share <= 1))
      f.fail(dp, "ms or share out of range");
  }
  s.ranks = f.list(sj, path, "ranks", [](const JsonFields& f, const json& r, const std::string& rp) {
    const std::int64_t p2p_bytes = f.get_i64(r, rp, "p2p_bytes");
    if (p2p_bytes < 0) f.fail(rp + ".p2p_bytes", "is negative");
    const int rank = f.get_int(r, rp, "rank");
    if (rank < 0 || rank >= kMaxWorldSize) f.fail(rp + ".rank", "is " + std::to_string(rank) + ", not a rank");
    return PredictedRank{rank,
                         f.get_double_in(r, rp, "compute_ms", 0, kMaxIterationMs),
                         f.get_double_in(r, rp, "exposed_comm_ms", 0, kMaxIterationMs),
                         f.get_double_in(r, rp, "idle_ms", 0, kMaxIterationMs),
                         f.get_double_in(r, rp, "nccl_share", 0, 1),
                         p2p_bytes};
  });
  if (sj.contains("activations_held")) {
    s.activations_held = f.get<std::vector<double>>(sj, path, "activations_held");
    for (std::size_t i = 0; i < s.activations_held.size(); ++i) {
      const double mb = s.activations_held[i];
      if (!(mb >= 0 && mb <= kMaxIterationMs))
        f.fail(JsonFields::item(path + ".activations_held", i), "is out of range");
    }
    // The peak of each pipeline rank the prediction lists (sim/predictor.cc), in that order.
    if (s.activations_held.size() != s.ranks.size()) {
      f.fail(JsonFields::join(path, "activations_held"), "has " + std::to_string(s.activations_held.size()) +
                                                             " values for " + std::to_string(s.ranks.size()) +
                                                             " ranks (one per rank of ranks)");
    }
  }
  return s;
}

json sharing_to_json(const std::vector<Sharing>& terms) {
  json out = json::array();
  for (const auto& t : terms) {
    out.push_back({{"op", t.op},
                   {"group_size", t.group_size},
                   {"groups", t.groups},
                   {"bytes", t.bytes},
                   {"alone_us", t.alone_us},
                   {"together_us", t.together_us},
                   {"slowdown", t.slowdown}});
  }
  return out;
}

Sharing read_sharing(const JsonFields& f, const json& j, const std::string& w) {
  Sharing s;
  s.op = f.get_string(j, w, "op");
  s.group_size = f.get_int(j, w, "group_size");
  s.groups = f.get_int(j, w, "groups");
  if (s.group_size < 1 || s.group_size > kMaxWorldSize) f.fail(w + ".group_size", "is not a number of ranks");
  if (s.groups < 2 || s.groups > kMaxWorldSize) f.fail(w + ".groups", "is not a number of groups (2 or more)");
  s.bytes = f.get_i64(j, w, "bytes");
  if (s.bytes <= 0) f.fail(w + ".bytes", "must be positive");
  s.alone_us = f.get_double_in(j, w, "alone_us", 0, kMaxIterationMs * 1e3);
  s.together_us = f.get_double_in(j, w, "together_us", 0, kMaxIterationMs * 1e3);
  s.slowdown = f.get_double_in(j, w, "slowdown", 0, 1e6);
  if (!(s.alone_us > 0)) f.fail(w + ".alone_us", "must be positive");
  return s;
}

json profile_terms_to_json(const std::vector<MeasuredTerm>& terms) {
  json out = json::array();
  for (const auto& t : terms) out.push_back({{"term", t.term}, {"rank", t.rank}, {"ms", t.ms}, {"source", t.source}});
  return out;
}

MeasuredTerm read_profile_term(const JsonFields& f, const json& j, const std::string& w) {
  MeasuredTerm t;
  t.term = f.get_string(j, w, "term");
  t.rank = f.get_int(j, w, "rank");
  if (t.rank < -1 || t.rank >= kMaxWorldSize) f.fail(w + ".rank", "is not a rank (or -1 for the job's)");
  t.ms = f.get_double_in(j, w, "ms", 0, kMaxIterationMs);
  t.source = f.get_string(j, w, "source");
  return t;
}

json profile_check_to_json(const ProfileCheck& c) {
  json ranks = json::array(), largest = json::array();
  for (const auto& r : c.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"measured_end_ms", r.measured_end_ms},
                     {"simulated_end_ms", r.simulated_end_ms},
                     {"measured_compute_ms", r.measured_compute_ms},
                     {"simulated_compute_ms", r.simulated_compute_ms}});
  }
  for (const auto& t : c.largest) {
    largest.push_back({{"rank", t.rank},
                       {"task", t.task},
                       {"measured_start_ms", t.measured_start_ms},
                       {"simulated_start_ms", t.simulated_start_ms}});
  }
  return {{"schedule", c.schedule.name},
          {"v", c.schedule.v},
          {"iterations", c.iterations},
          {"measured_ms", c.measured_ms},
          {"simulated_ms", c.simulated_ms},
          {"ranks", ranks},
          {"largest", largest}};
}

ProfileCheck read_profile_check(const JsonFields& f, const json& j) {
  const std::string w = "profile_check";
  ProfileCheck c;
  c.schedule = {f.get_string(j, w, "schedule"), f.get_int(j, w, "v")};
  c.iterations = f.get_i64(j, w, "iterations");
  if (c.iterations < 1) f.fail(w + ".iterations", "must be at least 1");
  c.measured_ms = f.get_double_in(j, w, "measured_ms", 0, kMaxIterationMs);
  c.simulated_ms = f.get_double_in(j, w, "simulated_ms", 0, kMaxIterationMs);
  c.ranks = f.list(j, w, "ranks", [](const JsonFields& g, const json& r, const std::string& rw) {
    ProfileCheck::Rank out;
    out.rank = g.get_int(r, rw, "rank");
    out.measured_end_ms = g.get_double_in(r, rw, "measured_end_ms", 0, kMaxIterationMs);
    out.simulated_end_ms = g.get_double_in(r, rw, "simulated_end_ms", 0, kMaxIterationMs);
    out.measured_compute_ms = g.get_double_in(r, rw, "measured_compute_ms", 0, kMaxIterationMs);
    out.simulated_compute_ms = g.get_double_in(r, rw, "simulated_compute_ms", -kMaxIterationMs, kMaxIterationMs);
    return out;
  });
  c.largest = f.list(j, w, "largest", [](const JsonFields& g, const json& t, const std::string& tw) {
    ProfileCheck::Task out;
    out.rank = g.get_int(t, tw, "rank");
    out.task = g.get_string(t, tw, "task");
    out.measured_start_ms = g.get_double_in(t, tw, "measured_start_ms", 0, kMaxIterationMs);
    out.simulated_start_ms = g.get_double_in(t, tw, "simulated_start_ms", 0, kMaxIterationMs);
    return out;
  });
  return c;
}

}  // namespace

json prediction_to_json(const Prediction& p) {
  json schedules = json::array();
  for (const auto& s : p.schedules) {
    json ranks = json::array();
    for (const auto& r : s.ranks) {
      ranks.push_back({{"rank", r.rank},
                       {"compute_ms", r.compute_ms},
                       {"exposed_comm_ms", r.exposed_comm_ms},
                       {"idle_ms", r.idle_ms},
                       {"nccl_share", r.nccl_share},
                       {"p2p_bytes", r.p2p_bytes}});
    }
    schedules.push_back(
        {{"name", s.id.name},
         {"reference", s.reference},
         {"v", s.id.v},
         {"overlap_p2p", s.overlap_p2p},
         {"iteration_ms", s.iteration_ms},
         {"steady_ms", s.steady_ms},
         {"step_rule", step_rule_name(s.step_rule)},
         {"speedup_vs_1f1b", s.speedup},
         {"bubble_ideal", s.bubble_ideal},
         {"bubble_sim", s.bubble_sim},
         {"dominant_cost", {{"what", s.dominant.what}, {"ms", s.dominant.ms}, {"share", s.dominant.share}}},
         {"ranks", ranks}});
    if (!s.activations_held.empty()) schedules.back()["activations_held"] = s.activations_held;
  }
  json be = json::object();
  for (const auto& [v, g] : p.break_even_gbps) be[std::to_string(v)] = g ? json(*g) : json(nullptr);
  json doc = {{"schema", kPredictionSchema},
              {"cost_source", p.cost_sources},
              {"compute",
               {{"source", p.compute_source},
                {"fwd_ms_per_layer", p.fwd_ms_per_layer},
                {"bwd_ms_per_layer", p.bwd_ms_per_layer}}},
              {"schedules", schedules},
              {"verdict",
               {{"best", p.best},
                {"text", p.verdict},
                {"deciding_pair", p.deciding_pair},
                {"compares", p.compares_cold ? "cold" : "steady"}}},
              {"break_even_gbps", be},
              {"notes", p.notes}};
  if (!p.sharing.empty()) doc["measured_terms"] = {{"collectives_at_once", sharing_to_json(p.sharing)}};
  if (!p.measured_terms.empty()) doc["measured_terms"]["from_profile"] = profile_terms_to_json(p.measured_terms);
  if (p.profile_check) doc["profile_check"] = profile_check_to_json(*p.profile_check);
  for (const auto& s : p.schedules) {
    if (!s.activations_held.empty()) doc["compute"]["w_share"] = p.w_share;  // a schedule splits B and W
  }
  if (!p.deciding_pair.empty()) {  // the verdict's "decided by" numbers, so a file reads back as it was predicted
    doc["verdict"]["deciding_pair_ms"] = p.deciding_pair_ms;
    doc["verdict"]["deciding_bytes"] = p.deciding_bytes;
  }
  if (p.band > 0) {  // a verdict decided with its band (sim/verdict.h)
    doc["verdict"]["too_close"] = p.too_close;
    doc["verdict"]["band"] = p.band;
    doc["verdict"]["band_source"] = p.band_source;
  }
  add_provenance(doc);
  return doc;
}

Prediction prediction_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kPredictionSchema, "pipebench prediction");
  Prediction p;
  p.cost_sources = f.get_strings(j, "", "cost_source");
  const json& compute = f.object(j, "", "compute");
  p.compute_source = f.get_string(compute, "compute", "source");
  p.fwd_ms_per_layer = f.get_double_in(compute, "compute", "fwd_ms_per_layer", 0, kMaxIterationMs);
  p.bwd_ms_per_layer = f.get_double_in(compute, "compute", "bwd_ms_per_layer", 0, kMaxIterationMs);
  if (compute.contains("w_share")) p.w_share = f.get_double_in(compute, "compute", "w_share", 0, 1);
  p.schedules = f.list(j, "", "schedules", read_schedule);
  const json& verdict = f.object(j, "", "verdict");
  p.best = f.get_string(verdict, "verdict", "best");
  p.verdict = f.get_string(verdict, "verdict", "text");
  p.deciding_pair = f.get_ints(verdict, "verdict", "deciding_pair");
  if (verdict.contains("compares")) {  // absent in files written before it was recorded: their one iteration
    const std::string compares = f.get_string(verdict, "verdict", "compares");
    if (compares != "cold" && compares != "steady")
      f.fail("verdict.compares", "is '" + compares + "', not cold or steady");
    p.compares_cold = compares == "cold";
  }
  if (verdict.contains("deciding_pair_ms")) {  // absent in files written before they were recorded
    p.deciding_pair_ms = f.get_double_in(verdict, "verdict", "deciding_pair_ms", 0, kMaxIterationMs);
    p.deciding_bytes = f.get_i64(verdict, "verdict", "deciding_bytes");
    if (p.deciding_bytes < 0) f.fail("verdict.deciding_bytes", "is negative");
  }
  if (verdict.contains("band")) {
    p.band = f.get_double(verdict, "verdict", "band");
    if (!(p.band > 0 && p.band < 1)) f.fail("verdict.band", "must be in (0, 1)");
    p.band_source = f.get_string(verdict, "verdict", "band_source");
    p.too_close = f.get_bool(verdict, "verdict", "too_close");
  }
  const json& break_even = f.object(j, "", "break_even_gbps");
  for (const auto& [key, value] : break_even.items()) {
    int v = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), v);
    if (ec != std::errc() || end != key.data() + key.size()) {
      f.fail("break_even_gbps." + key, "is not keyed by a number of virtual stages");
    }
    p.break_even_gbps.emplace_back(v, value.is_null()
                                          ? std::optional<double>()
                                          : f.get_double_in(break_even, "break_even_gbps", key, 0, kMaxIterationMs));
  }
  p.notes = f.get_strings(j, "", "notes");
  if (j.contains("measured_terms")) {
    const json& terms = f.object(j, "", "measured_terms");
    if (terms.contains("collectives_at_once"))
      p.sharing = f.list(terms, "measured_terms", "collectives_at_once", read_sharing);
    if (terms.contains("from_profile"))
      p.measured_terms = f.list(terms, "measured_terms", "from_profile", read_profile_term);
  }
  if (j.contains("profile_check")) p.profile_check = read_profile_check(f, f.object(j, "", "profile_check"));
  return p;
}

void save_prediction(const std::string& path, const Prediction& p) {
  write_output_file("", path, json_file_text(prediction_to_json(p), 2));
}

}  // namespace pipebench
