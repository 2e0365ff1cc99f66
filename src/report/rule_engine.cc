// SPDX-License-Identifier: Apache-2.0
#include "report/rule_engine.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>

#include "collectives/registry.h"
#include "core/printf_string.h"
#include "core/units.h"
#include "io/input_views.h"
#include "replay/replay.h"
#include "report/baseline_compare.h"
#include "report/diagnosis.h"
#include "report/fleet_baseline.h"
#include "report/link_band_check.h"
#include "topology/gpu_model_bus.h"

namespace pipebench {

namespace {

bool violates(const Rule& rule, double v, double limit) {
  return rule.comparison == Comparison::kAtLeast ? v < limit : v > limit;
}

bool size_matches(const Rule& rule, const ResultRecord& r) {
  if (!rule.op.empty() && r.op != rule.op) return false;
  return !rule.sizes || (r.size_bytes >= rule.sizes->first && r.size_bytes <= rule.sizes->second);
}

// The largest size per op among the records a rule selects, in one input.
std::map<std::string, std::uint64_t> largest_sizes(const Rule& rule, const ResultSet& rs) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& r : rs.records) {
    if (size_matches(rule, r) && r.error.empty()) out[r.op] = std::max(out[r.op], r.size_bytes);
  }
  return out;
}

// A p95/median rule's noise floor (rule.h, kDefaultStabilityFloorUs): a spread of p95 over the median
// below min_spread_us is the timer's and the launch's jitter, not an unstable point.
bool below_noise_floor(const Rule& rule, const ResultRecord& r) {
  return rule.metric->kind == MetricKind::kP95OverMedian && r.stats.p95_us - r.stats.median_us < rule.min_spread_us;
}

// Keeps the kMaxRulePoints points that matter most: the highest status first, then the earliest checked,
// in the order they were checked; the others are counted in points_left_out.
void bound_points(RuleOutcome& out) {
  if (out.points.size() <= kMaxRulePoints) return;
  std::vector<std::size_t> order(out.points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return out.points[a].status > out.points[b].status; });
  order.resize(kMaxRulePoints);
  std::sort(order.begin(), order.end());
  std::vector<PointOutcome> kept;
  kept.reserve(kMaxRulePoints);
  for (const std::size_t i : order) kept.push_back(std::move(out.points[i]));
  out.points_left_out += out.points.size() - kept.size();
  out.points = std::move(kept);
}

// Every checked point goes through here (its status set): counted, kept while the rule has room (pruned
// at twice the cap, so that memory stays bounded however many records a rule checks).
void keep_point(RuleOutcome& out, PointOutcome p) {
  ++out.checked;
  if (p.status != Status::kPass) ++out.offending;
  out.status = std::max(out.status, p.status);
  out.points.push_back(std::move(p));
  if (out.points.size() >= 2 * kMaxRulePoints) bound_points(out);
}

void add_point(RuleOutcome& out, PointOutcome p, bool bad, Status severity) {
  p.status = bad ? severity : Status::kPass;
  keep_point(out, std::move(p));
}

void check_links(const ReportInputs& inputs, const Rule& rule, RuleOutcome& out) {
  auto check = [&](const std::string& host, const LinkStateEntry& links, int nvlinks_up_start) {
    const auto v = link_metric(links, nvlinks_up_start);
    if (!v) return;
    PointOutcome p;
    p.op = "link";
    p.ranks = {links.gpu};
    p.host = host;
    p.value = *v;
    p.limit = rule.threshold;
    p.note = describe_link(links, nvlinks_up_start);
    add_point(out, std::move(p), violates(rule, *v, rule.threshold), rule.severity);
  };
  // One host's files (bench, pairs) all carry its links: check each host's links once.
  std::set<std::string> hosts_with_run_state;
  for (const auto& in : inputs.results) {
    const std::string host = host_of(in);
    const std::vector<int> gpus = link_state_gpus(in.doc);
    if (gpus.empty() || !hosts_with_run_state.insert(host).second) continue;
    for (const int gpu : gpus)
      check(host, link_over_run(in.doc, gpu), link_entry(in.doc.system.link_start, gpu).nvlinks_up);
  }
  // A topology alone gives the state at discovery; the run's state wins where both exist.
  for (const auto& t : inputs.topologies) {
    if (hosts_with_run_state.count(t.doc.host) > 0) continue;
    for (const auto& links : links_at_discovery(t.doc)) check(t.doc.host, links, -1);
  }
}

// Where no topology of a results file's node is known, its one GPU model's bus (topology/gpu_model_bus.h):
// the link a fraction_of_link rule holds a point against, said to come from the model name. nullopt with a
// topology (then the path's own link or nothing), several models or hosts, one rank, or an unknown model.
std::optional<ModelBus> model_bus(const ResultSet& rs, const TopologyFile* topo, const ResultRecord& r) {
  if (topo != nullptr || r.path_min_gbps || r.nranks < 2 || rs.system.gpu_models.size() != 1) return std::nullopt;
  if (hosts_of(rs).size() > 1) return std::nullopt;
  return bus_of_gpu_model(rs.system.gpu_models.front(), OpRegistry::instance().traits(r.op).nvswitch_reduces);
}

// A point against its model's bus: the rule's limit, or the low end of the band such a bus gives where that
// is lower (a PCIe node without P2P is healthy at 0.38 of its link: link_band.h), and a note saying so.
void limit_by_model_bus(const ResultSet& rs, const ModelBus& bus, const ResultRecord& r, PointOutcome& p,
                        std::string& bus_text) {
  p.limit = std::min(*p.limit, bus.low_fraction);
  const std::string model = rs.system.gpu_models.front();
  p.note = printf_string(
      "%.2f GB/s at %s is %.1f %% of %s (%.1f GB/s per direction), the bus of %s by its model "
      "name (no topology known); expected %.1f-%.1f GB/s (%s)",
      r.busbw_gbps, format_size(r.size_bytes).c_str(), 100 * r.busbw_gbps / bus.gbps, bus.label.c_str(), bus.gbps,
      model.c_str(), bus.low_fraction * bus.gbps, bus.high_fraction * bus.gbps, bus.band_source.c_str());
  bus_text = printf_string(
      "held against %s (%.1f GB/s), the bus of %s by its model name (no topology known), "
      "limit %.2g: the low end of the band such a bus gives",
      bus.label.c_str(), bus.gbps, model.c_str(), *p.limit);
}

// Returns, when a point was held against its GPU model's bus, what the rule's message says of it.
std::string check_records(const ReportInputs& inputs, const Rule& rule, RuleOutcome& out) {
  std::string bus_text;
  for (const auto& in : inputs.results) {
    const TopologyFile* topo = topology_for(inputs, in);
    const std::string host = host_of(in);
    const auto largest = rule.largest_size_only ? largest_sizes(rule, in.doc) : std::map<std::string, std::uint64_t>{};
    for (const auto& r : in.doc.records) {
      if (!size_matches(rule, r)) continue;
      if (rule.largest_size_only && (largest.count(r.op) == 0 || largest.at(r.op) != r.size_bytes)) continue;
      // A p95/median of one sample (an imported nccl-tests row) is 1 by construction: nothing to check.
      if (rule.metric->kind == MetricKind::kP95OverMedian && r.stats.samples < 2) continue;
      const bool links = rule.metric->kind == MetricKind::kFractionOfLink;
      auto link = links ? narrowest_link_gbps(in.doc, topo, r) : std::optional<double>();
      const auto bus = links && !link ? model_bus(in.doc, topo, r) : std::nullopt;
      if (bus) link = bus->gbps;
      const auto v = record_metric(*rule.metric, r, link);
      if (!v) continue;
      PointOutcome p = point_of(host, r);
      p.value = *v;
      p.limit = rule.threshold;
      if (bus) limit_by_model_bus(in.doc, *bus, r, p, bus_text);
      if (!r.error.empty()) p.note = r.error;
      const bool bad = violates(rule, *v, *p.limit);
      add_point(out, std::move(p), bad && !below_noise_floor(rule, r), rule.severity);
    }
  }
  return bus_text;
}

// True when the inputs hold records and every one is one sample (imported nccl-tests rows).
bool one_sample_each(const ReportInputs& inputs) {
  bool any = false;
  for (const auto& in : inputs.results) {
    for (const auto& r : in.doc.records) {
      if (r.stats.samples >= 2) return false;
      any = true;
    }
  }
  return any;
}

void check_baseline(const ReportInputs& inputs, const Rule& rule, RuleOutcome& out) {
  std::vector<InputFile<ResultSet>> now = inputs.results, old = inputs.baseline;
  for (auto* side : {&now, &old}) {
    for (auto& in : *side) {
      auto& records = in.doc.records;
      records.erase(
          std::remove_if(records.begin(), records.end(), [&](const ResultRecord& r) { return !size_matches(rule, r); }),
          records.end());
    }
  }
  for (const auto& c : compare_to_baseline(now, old, *rule.metric, rule.threshold)) {
    PointOutcome p;
    p.op = c.op;
    p.size_bytes = c.size_bytes;
    p.host = c.host;
    p.value = c.new_value;
    p.limit = c.old_value;
    if (!c.new_value || !c.old_value) {
      p.status = Status::kWarn;
      p.note = !c.old_value ? "missing from the baseline: " + c.key : "missing from the new results: " + c.key;
    } else {
      p.status = c.worse ? rule.severity : Status::kPass;
      p.note = std::string(printf_string("ratio %.3f", c.ratio)) +
               (c.changed ? "" : " (within the limit or the runs' spread)") + ": " + c.key;
    }
    keep_point(out, std::move(p));
  }
}

void check_mad(const ReportInputs& inputs, const Rule& rule, RuleOutcome& out) {
  const auto findings = mad_outliers(inputs.results, *rule.metric, rule.threshold,
                                     [&](const ResultRecord& r) { return size_matches(rule, r); });
  for (const auto& f : findings) {
    PointOutcome p = point_of(host_of(*f.input), *f.record);
    p.host = f.member;
    p.value = f.value;
    p.limit = f.peers_median;
    p.note = printf_string("%.1f MADs from the peers' median (MAD %.3g)", f.deviations, f.mad);
    add_point(out, std::move(p), f.outlier, rule.severity);
  }
}

// A rule that names an op or sizes and selects no measured point at all: "" when it selects one, or when
// there are no measured points (then nothing could be checked and the other reasons say so).
std::string unmatched_selector(const ReportInputs& inputs, const Rule& rule) {
  if (rule.op.empty() && !rule.sizes) return "";
  std::set<std::string> ops;
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& in : inputs.results) {
    for (const auto& r : in.doc.records) {
      if (size_matches(rule, r)) return "";
      ops.insert(r.op);
      lo = std::min(lo, r.size_bytes), hi = std::max(hi, r.size_bytes);
    }
  }
  if (ops.empty()) return "";
  std::string want = "op " + (rule.op.empty() ? std::string("any") : rule.op) + ", size ";
  want += !rule.sizes ? "any"
          : rule.sizes->first == rule.sizes->second
              ? format_size(rule.sizes->first)
              : format_size(rule.sizes->first) + ".." + format_size(rule.sizes->second);
  std::string have;
  for (const auto& op : ops) have += (have.empty() ? "" : ", ") + op;
  return "not applied: matches no measured point (" + want + "); measured: " + have + " at " + format_size(lo) + ".." +
         format_size(hi);
}

// Why fraction_of_link found no point: no GPU ranks at all (the MPI backend runs on host memory), no
// topology for the GPUs, or no point whose ranks' path is known.
std::string why_no_link(const ReportInputs& inputs) {
  if (inputs.results.empty()) return "not applied: no results";
  bool gpus = false, topology = false;
  for (const auto& in : inputs.results) {
    for (const auto& d : in.doc.system.devices)
      gpus = gpus || (!d.bus_id.empty() && device_of_rank(in.doc, d.rank) == &d);
    for (const auto& r : in.doc.records) gpus = gpus || r.path_min_gbps.has_value();
    topology = topology || topology_for(inputs, in) != nullptr;
  }
  if (!gpus) return "not applied: no GPU path in these results (their ranks ran on host memory)";
  if (!topology) {
    return "not applied: no topology known for these results' GPUs, nor a bus for their GPU model's name; run "
           "`pipebench topo --format json > topo.json` on the node and give topo.json as an INPUT";
  }
  return "not applied: no point with a known topology link";
}

std::string summary_message(const ReportInputs& inputs, const RuleOutcome& out, const Rule& rule) {
  if (out.checked == 0) {
    if (inputs.results.empty() && rule.metric->kind != MetricKind::kLinkBelowMax) return "not applied: no results";
    if (rule.comparison == Comparison::kBaselineWithinPct) return "not applied: no --baseline";
    if (rule.metric->kind == MetricKind::kFractionOfLink) return why_no_link(inputs);
    if (rule.metric->kind == MetricKind::kLinkBelowMax)
      return "not applied: no GPU link whose state and maximum are known in these inputs";
    if (rule.comparison == Comparison::kMadOutlierK) return "not applied: fewer than 3 hosts or pairs per point";
    if (rule.metric->kind == MetricKind::kP95OverMedian && one_sample_each(inputs)) {
      return "not applied: every point is one sample (imported nccl-tests rows: p95 = median by construction)";
    }
    return "not applied: no point has this metric";
  }
  std::string text =
      printf_string("%zu of %zu points violate (%s %s %g)", out.offending, out.checked,
                    std::string(rule.metric->name).c_str(), comparison_name(rule.comparison), rule.threshold);
  if (rule.metric->kind == MetricKind::kP95OverMedian && rule.min_spread_us > 0) {
    text += printf_string("; a p95 - median spread below %g us is jitter, not instability", rule.min_spread_us);
  }
  return text;
}

}  // namespace

RuleOutcome new_outcome(std::string name, std::string metric, std::string comparison, Status severity) {
  RuleOutcome out;
  out.name = std::move(name);
  out.metric = std::move(metric);
  out.comparison = std::move(comparison);
  out.severity = severity;
  return out;
}

const TopologyFile* topology_for(const ReportInputs& inputs, const InputFile<ResultSet>& in) {
  if (in.doc.system.topology) return &*in.doc.system.topology;
  const std::string host = host_of(in);
  for (const auto& t : inputs.topologies) {
    if (t.doc.host == host) return &t.doc;
  }
  if (inputs.topologies.size() == 1 && hosts_of(in.doc).size() <= 1) return &inputs.topologies.front().doc;
  return nullptr;
}

namespace {

// A job trace checked against the model (trace --prediction/--replay): a built-in check that warns when
// a rank's measured communication share or iteration time is beyond the trace's --tolerance.
RuleOutcome trace_model_outcome(const std::string& path, const ModelCheck& m) {
  RuleOutcome out = new_outcome("trace-matches-model", "comm_share", "within_tolerance", Status::kWarn);
  for (const auto& r : m.ranks) {
    PointOutcome p;
    p.op = "trace";
    p.ranks = {r.rank};
    p.value = r.measured_comm_share;
    p.limit = m.tolerance;
    for (const auto& x : r.mismatches) p.note += (p.note.empty() ? "" : "; ") + x;
    add_point(out, std::move(p), !r.mismatches.empty(), Status::kWarn);
  }
  bound_points(out);
  out.message = std::to_string(m.mismatches) + " of " + std::to_string(m.ranks.size()) + " ranks of " + path +
                " beyond the tolerance against the model (schedule " + m.schedule + ")";
  return out;
}

// A replay held against its prediction: a built-in check that warns when they disagree on the fastest
// schedule or on a speed-up by more than the model's band (so that `run` never contradicts itself quietly).
RuleOutcome replay_agreement_outcome(const InputFile<ReplayResult>& r, const Agreement& a) {
  RuleOutcome out = new_outcome("replay-matches-prediction", "speedup_vs_1f1b", "within_band", Status::kWarn);
  PointOutcome p;
  p.op = "replay";
  // The statement itself is the report's answer (report_document.cc, add_answer), said once there: the rule
  // names the outcome and where it is said, never a second wording of it.
  p.note = a.agree          ? "agrees with its prediction"
           : a.inconclusive ? "cannot confirm or contradict its prediction (its own spread covers the difference)"
                            : "DISAGREES with its prediction";
  out.message = r.path + ": " + p.note + " (the answer under the verdict says how)";
  add_point(out, std::move(p), !a.agree && !a.inconclusive, Status::kWarn);
  return out;
}

// A replay file that says it stopped before its end: a built-in warning naming what it did not measure.
RuleOutcome replay_complete_outcome(const InputFile<ReplayResult>& r) {
  RuleOutcome out = new_outcome("replay-complete", "schedules_measured", "all", Status::kWarn);
  PointOutcome p;
  p.op = "replay";
  p.note = replay_incomplete_text(r.doc);
  out.message = r.path + ": " + p.note;
  add_point(out, std::move(p), true, Status::kWarn);
  return out;
}

}  // namespace

RuleOutcome evaluate_rule(const ReportInputs& inputs, const Rule& rule) {
  RuleOutcome out =
      new_outcome(rule.name, std::string(rule.metric->name), comparison_name(rule.comparison), rule.severity);
  std::string bus_text;  // points held against their GPU model's bus
  if (rule.comparison == Comparison::kBaselineWithinPct) {
    if (!inputs.baseline.empty()) check_baseline(inputs, rule, out);
  } else if (rule.comparison == Comparison::kMadOutlierK) {
    check_mad(inputs, rule, out);
  } else if (rule.metric->kind == MetricKind::kLinkBelowMax) {
    check_links(inputs, rule, out);
  } else {
    bus_text = check_records(inputs, rule, out);
  }
  bound_points(out);
  out.message = summary_message(inputs, out, rule);
  if (!bus_text.empty()) out.message += "; " + bus_text;
  out.applied = out.checked > 0;
  if (!out.applied) {
    const std::string unmatched = unmatched_selector(inputs, rule);
    if (!unmatched.empty()) out.message = unmatched, out.status = Status::kWarn;
  }
  return out;
}

ReportOutcome evaluate_report(const ReportInputs& inputs, const std::vector<Rule>& rules) {
  ReportOutcome rep;
  for (const auto& rule : rules) {
    rep.rules.push_back(evaluate_rule(inputs, rule));
    if (rule.metric->kind == MetricKind::kP95OverMedian && rule.comparison == Comparison::kAtMost) {
      rep.stability_limit = rule.threshold;
      rep.stability_floor_us = rule.min_spread_us;
    }
  }
  for (const auto& t : inputs.traces) {
    if (t.doc.job.model_check) rep.rules.push_back(trace_model_outcome(t.path, *t.doc.job.model_check));
  }
  for (const auto& r : inputs.replays) {
    const Agreement a = replay_agreement(r.doc, kDefaultSpeedupBand, "default");
    if (a.compared) rep.rules.push_back(replay_agreement_outcome(r, a));
    if (!r.doc.complete) rep.rules.push_back(replay_complete_outcome(r));
  }
  if (auto band = link_band_outcome(inputs)) rep.rules.push_back(std::move(*band));
  if (inputs.fleet) rep.rules.push_back(check_fleet_baseline(inputs.results, *inputs.fleet, inputs.mad_k));
  if (inputs.not_applied_fails) {
    for (auto& r : rep.rules) r.status = r.applied ? r.status : Status::kFail;
  }
  // Failing first, then warnings, then passes, then the rules that were not applied.
  std::stable_sort(rep.rules.begin(), rep.rules.end(), [](const RuleOutcome& a, const RuleOutcome& b) {
    return a.status != b.status ? a.status > b.status : a.applied && !b.applied;
  });
  for (const auto& r : rep.rules) {
    rep.verdict = std::max(rep.verdict, r.status);
    (r.status == Status::kFail   ? rep.failed
     : r.status == Status::kWarn ? rep.warned
     : r.applied                 ? rep.passed
                                 : rep.not_applied) += 1;
  }
  if (!inputs.baseline.empty()) {
    const Rule* base = nullptr;
    for (const auto& r : rules) {
      if (r.comparison == Comparison::kBaselineWithinPct && base == nullptr) base = &r;
    }
    const Metric& m = base ? *base->metric : *find_metric("busbw_gbps");
    rep.compare_metric = std::string(m.name);
    rep.compared = compare_to_baseline(inputs.results, inputs.baseline, m, base ? base->threshold : 5.0);
  }
  std::set<std::string> hosts;
  for (const auto& in : inputs.results) hosts.insert(host_of(in));
  if (hosts.size() >= 3) {
    rep.diagnosis_metric = "busbw_gbps";
    rep.hosts = diagnose_hosts(
        mad_outliers(inputs.results, *find_metric("busbw_gbps"), inputs.mad_k,
                     [](const ResultRecord& r) { return !OpRegistry::instance().traits(r.op).is_transfer; }));
  }
  return rep;
}

bool verdict_judged(const ReportOutcome& out) { return out.failed + out.warned + out.passed > 0; }

namespace {

// "links-at-max (no GPU link ...), stable-points (every point is one sample ...)": the rules that were not
// applied, those of one reason named together before it.
std::string not_applied_text(const std::vector<RuleOutcome>& rules) {
  static const std::string kPrefix = "not applied: ";
  std::vector<std::pair<std::string, std::string>> reasons;  // (why, names), in the rules' order
  for (const auto& r : rules) {
    if (r.applied) continue;
    const std::string why = r.message.rfind(kPrefix, 0) == 0 ? r.message.substr(kPrefix.size()) : r.message;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& x) { return x.first == why; });
    if (it == reasons.end()) {
      reasons.emplace_back(why, r.name);
    } else {
      it->second += ", " + r.name;
    }
  }
  std::string out;
  for (const auto& [why, names] : reasons) out += (out.empty() ? "" : "; ") + names + " (" + why + ")";
  return out;
}

}  // namespace

std::string verdict_line(const ReportOutcome& out) {
  const std::string state = verdict_judged(out) ? status_name(out.verdict) : "NO CHECKS";
  std::size_t applied = 0, failed = 0, warned = 0;
  for (const auto& r : out.rules) {
    if (!r.applied) continue;
    ++applied;
    failed += r.status == Status::kFail ? 1 : 0;
    warned += r.status == Status::kWarn ? 1 : 0;
  }
  std::string counts;
  auto add = [&](std::size_t n, const char* what) {
    if (n > 0) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  if (applied == out.rules.size()) {
    add(failed, "failed"), add(warned, "warned"), add(applied - failed - warned, "passed");
    return state + ": " + (counts.empty() ? "no rules" : counts);
  }
  // What was not checked comes with the verdict, never after a bare PASS: "PASS on 3 of 6 rules; not
  // applied: ...". A rule that warned for matching nothing is among those not applied.
  if (failed + warned > 0) add(failed, "failed"), add(warned, "warned"), add(applied - failed - warned, "passed");
  const bool strict = std::any_of(out.rules.begin(), out.rules.end(),
                                  [](const RuleOutcome& r) { return !r.applied && r.status == Status::kFail; });
  return state + " on " + std::to_string(applied) + " of " + std::to_string(out.rules.size()) + " rules" +
         (counts.empty() ? "" : " (" + counts + ")") + "; not applied: " + not_applied_text(out.rules) +
         (strict ? "; --strict: a rule not applied fails" : "");
}

const char* rule_state_name(const RuleOutcome& r) {
  return !r.applied && r.status == Status::kPass ? "NOT APPLIED" : status_name(r.status);
}

const char* status_name(Status s) {
  switch (s) {
    case Status::kWarn:
      return "WARN";
    case Status::kFail:
      return "FAIL";
    case Status::kPass:
      break;
  }
  return "PASS";
}

}  // namespace pipebench
