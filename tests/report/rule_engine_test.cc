// SPDX-License-Identifier: Apache-2.0
#include "report/rule_engine.h"

#include <gtest/gtest.h>

#include "core/file_io.h"
#include "io/nccl_tests_log.h"
#include "report/report_fixture.h"

namespace pipebench {
namespace {

using testing::make_host;
using testing::make_topology;

Rule rule_of(const std::string& json) { return parse_rules(nlohmann::json::parse("[" + json + "]"), "r").at(0); }

TEST(RuleEngine, TheIssueExampleFails) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  const auto out = evaluate_report(in, {rule_of(R"({"name": "ar-busbw", "op": "all_reduce",
      "metric": "busbw_gbps", "sizes": ["1M", "1M"], "at_least": 1000000})")});
  EXPECT_EQ(out.verdict, Status::kFail);
  ASSERT_EQ(out.rules.size(), 1u);
  EXPECT_EQ(out.rules[0].checked, 1u);  // the 1M point only
  ASSERT_EQ(out.rules[0].points.size(), 1u);
  EXPECT_EQ(out.rules[0].points[0].status, Status::kFail);
  EXPECT_EQ(out.rules[0].points[0].value, 150.0);
  EXPECT_EQ(out.rules[0].points[0].limit, 1e6);
}

// A replay that contradicts its prediction is a WARN of the report, whatever the rules (run's report must
// not be a quiet PASS beside a disagreeing replay); one that agrees adds a passing check.
TEST(RuleEngine, ReplayThatContradictsItsPredictionWarns) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.topologies = {make_topology("h", 2, 160)};
  // Predicted 120 and 100 ms, replayed 120 and 130: the replay finds 1F1B fastest.
  ReplayResult replay;
  for (const auto& [id, ms] :
       std::vector<std::pair<ScheduleId, double>>{{{"1f1b", 1}, 120}, {{"interleaved", 2}, 100}}) {
    replay.schedules.emplace_back().id = id;
    replay.schedules.back().predicted_ms = ms;
    replay.schedules.back().iteration_ms = {ms};
    replay.schedules.back().median_ms = ms;
  }
  replay.schedules[1].median_ms = 130;
  in.replays = {{"replay.json", replay}};
  auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kWarn);
  ASSERT_FALSE(out.rules.empty());
  EXPECT_EQ(out.rules.front().name, "replay-matches-prediction");
  EXPECT_NE(out.rules.front().message.find("DISAGREE"), std::string::npos);
  in.replays[0].doc.schedules[1].median_ms = 100;  // as predicted
  out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kPass);
  for (auto& s : in.replays[0].doc.schedules) s.predicted_ms.reset();  // a replay without a prediction: no check
  EXPECT_EQ(evaluate_report(in, default_rules()).rules.size(), default_rules().size());
}

// A replay file that says it stopped before its end warns, naming what it did not measure in full.
TEST(RuleEngine, IncompleteReplayWarnsNamingWhatItMissed) {
  ReportInputs in;
  ReplayResult replay;
  replay.complete = false;
  replay.incomplete = {"interleaved:v2"};
  in.replays = {{"replay.json", replay}};
  const auto out = evaluate_report(in, default_rules());
  ASSERT_FALSE(out.rules.empty());
  EXPECT_EQ(out.rules.front().name, "replay-complete");
  EXPECT_EQ(out.rules.front().status, Status::kWarn);
  EXPECT_EQ(out.rules.front().message,
            "replay.json: incomplete: the replay stopped before its end; not measured in full: interleaved:v2");
  in.replays[0].doc.complete = true;
  EXPECT_EQ(evaluate_report(in, default_rules()).rules.size(), default_rules().size());
}

TEST(RuleEngine, DefaultsPassOnAHealthyHostAndFailingFirst) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.topologies = {make_topology("h", 2, 160)};
  auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kPass) << out.rules[0].name << ": " << out.rules[0].message;
  // 150/160 = 0.94 of the link at the largest size: both busbw rules checked one point.
  for (const auto& r : out.rules) {
    if (r.metric == "fraction_of_link") {
      EXPECT_EQ(r.checked, 1u) << r.name;
    }
  }
  in.results[0].doc.records[0].wrong = 3;
  out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  EXPECT_EQ(out.rules.front().name, "no-wrong-values");
  EXPECT_EQ(out.failed, 1u);
}

TEST(RuleEngine, BusbwBelowTheLinkWarnsThenFails) {
  ReportInputs in;
  in.results = {make_host("h", 120)};  // 0.75 of 160: warn only
  in.topologies = {make_topology("h", 2, 160)};
  EXPECT_EQ(evaluate_report(in, default_rules()).verdict, Status::kWarn);
  in.results = {make_host("h", 100)};  // 0.625: fail
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  EXPECT_EQ(out.rules.front().name, "busbw-vs-link");
  // Without a topology the link rules check nothing and say so.
  in.topologies.clear();
  const auto none = evaluate_report(in, default_rules());
  EXPECT_EQ(none.verdict, Status::kPass);
  for (const auto& r : none.rules) {
    if (r.metric == "fraction_of_link") {
      EXPECT_NE(r.message.find("not applied"), std::string::npos);
    }
  }
}

TEST(RuleEngine, LinkBelowItsMaximumFails) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.results[0].doc.link_during_run = {{0, "0000:0a:00.0", 5, 16, 5, 16}, {1, "0000:0b:00.0", 4, 16, 5, 16}};
  const auto out = evaluate_rule(in, default_rules()[2]);
  EXPECT_EQ(out.status, Status::kFail);
  EXPECT_EQ(out.checked, 2u);
  EXPECT_EQ(out.points[1].status, Status::kFail);
  EXPECT_NE(out.points[1].note.find("PCIe Gen4 x16 of Gen5 x16"), std::string::npos) << out.points[1].note;
  // A second file of the same host (its pairs) carries the same links: counted once.
  in.results.push_back(in.results[0]);
  EXPECT_EQ(evaluate_rule(in, default_rules()[2]).checked, 2u);
}

TEST(RuleEngine, ANvlinkDownOrLostDuringTheRunFails) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  const LinkStateEntry healthy{0, "0000:0a:00.0", 5, 16, 5, 16, 18, 0};
  LinkStateEntry lost_start = healthy;
  lost_start.gpu = 1;
  LinkStateEntry lost_end = lost_start;
  lost_end.nvlinks_up = 17;  // one link went down while the run went on
  lost_end.nvlinks_down = 1;
  in.results[0].doc.system.link_start = {healthy, lost_start};
  in.results[0].doc.system.link_end = {healthy, lost_end};
  const auto out = evaluate_rule(in, default_rules()[2]);
  EXPECT_EQ(out.status, Status::kFail);
  ASSERT_EQ(out.points.size(), 2u);
  EXPECT_EQ(out.points[0].status, Status::kPass);
  EXPECT_EQ(out.points[1].status, Status::kFail);
  EXPECT_NE(out.points[1].note.find("NVLinks 17 up, 1 down (18 up at start)"), std::string::npos) << out.points[1].note;
  // NVLink state alone (no PCIe figures) is enough to check.
  LinkStateEntry nv_only;
  nv_only.gpu = 0;
  nv_only.nvlinks_up = 4;
  nv_only.nvlinks_down = 0;
  EXPECT_EQ(link_metric(nv_only, 4), 0.0);
  EXPECT_FALSE(link_metric(LinkStateEntry{}, -1));
}

TEST(RuleEngine, TheRecordsOwnPathLinkAppliesTheBusbwRulesWithoutATopology) {
  ReportInputs in;
  in.results = {make_host("h", 100)};
  for (auto& r : in.results[0].doc.records) r.path_min_gbps = 160.0;
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);  // 100 / 160 = 0.625 < 0.7
  EXPECT_EQ(out.rules.front().name, "busbw-vs-link");
  EXPECT_EQ(out.rules.front().checked, 1u);  // the largest size only
  ASSERT_EQ(out.rules.front().points.size(), 1u);
  EXPECT_DOUBLE_EQ(out.rules.front().points[0].value.value(), 0.625);
}

TEST(RuleEngine, HostMemoryRanksSayThereIsNoGpuPath) {
  ReportInputs in;
  in.results = {make_host("h", 1.5)};
  for (auto& d : in.results[0].doc.system.devices) d.bus_id.clear();  // the MPI backend: ranks on host memory
  for (auto& r : in.results[0].doc.records) r.backend = "mpi";
  in.topologies = {make_topology("h", 2, 160)};
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kPass);
  for (const auto& r : out.rules) {
    if (r.metric == "fraction_of_link") {
      EXPECT_EQ(r.checked, 0u);
      EXPECT_EQ(r.message, "not applied: no GPU path in these results (their ranks ran on host memory)");
    }
    if (r.metric == "link_below_max") {
      EXPECT_EQ(r.checked, 2u);  // the topology's links at discovery
    }
  }
  in.topologies.clear();
  in.results[0].doc.system.devices[0].bus_id = "0000:0a:00.0";
  in.results[0].doc.system.devices[1].bus_id = "0000:0b:00.0";
  for (const auto& r : evaluate_report(in, default_rules()).rules) {
    if (r.metric == "fraction_of_link") {
      EXPECT_EQ(r.message.rfind("not applied: no topology known for these results' GPUs", 0), 0u) << r.message;
    }
  }
}

TEST(RuleEngine, UnstablePointsWarn) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.results[0].doc.records[1].stats.median_us = 100;  // long enough for the ratio to mean something
  in.results[0].doc.records[1].stats.p95_us = 150;
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kWarn);
  EXPECT_EQ(out.rules.front().name, "stable-points");
}

// A point of a few microseconds whose p95 is 1.5x its median is jitter, not instability: the default
// stable-points rule has a noise floor in absolute time; a rule without one (or with a lower one) warns.
TEST(RuleEngine, StabilityHasANoiseFloorInAbsoluteTime) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  auto& tiny = in.results[0].doc.records[1];
  tiny.stats.median_us = 4;
  tiny.stats.p95_us = 6;  // 1.5x, 2 us apart
  auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kPass) << out.rules.front().name << ": " << out.rules.front().message;
  EXPECT_EQ(out.stability_floor_us, kDefaultStabilityFloorUs);
  for (const auto& r : out.rules) {
    if (r.name == "stable-points") {
      EXPECT_NE(r.message.find("below 5 us is jitter"), std::string::npos) << r.message;
    }
  }
  const Rule no_floor = rule_of(R"({"name": "s", "metric": "p95_over_median", "at_most": 1.2, "severity": "warn"})");
  EXPECT_EQ(evaluate_report(in, {no_floor}).verdict, Status::kWarn);
  // Beyond the floor the ratio decides again.
  tiny.stats.median_us = 40, tiny.stats.p95_us = 60;
  EXPECT_EQ(evaluate_report(in, default_rules()).verdict, Status::kWarn);
  const Rule wide =
      rule_of(R"({"name": "s", "metric": "p95_over_median", "at_most": 1.2, "min_spread_us": 25, "severity": "warn"})");
  EXPECT_EQ(evaluate_report(in, {wide}).verdict, Status::kPass);
}

// A rule that found nothing to check is "not applied", never a PASS: a prediction alone is no green
// "PASS: 6 passed" but "NO CHECKS: 6 not applied", and a host without topology counts its link rules apart.
TEST(RuleEngine, RulesWithNothingToCheckAreNotAppliedAndNotPassed) {
  ReportInputs in;
  Prediction pred;
  pred.schedules.resize(2);
  pred.schedules[0].id = {"1f1b", 1}, pred.schedules[0].iteration_ms = 120;
  pred.schedules[1].id = {"interleaved", 2}, pred.schedules[1].iteration_ms = 105;
  pred.verdict = "interleaved v=2 is fastest";
  in.predictions = {{"prediction.json", pred}};
  auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.passed, 0u);
  EXPECT_EQ(out.not_applied, default_rules().size());
  EXPECT_FALSE(verdict_judged(out));
  EXPECT_EQ(verdict_line(out),
            "NO CHECKS on 0 of 6 rules; not applied: no-wrong-values, no-failed-point, busbw-vs-link, "
            "busbw-vs-link-warn, stable-points (no results); links-at-max (no GPU link whose state and maximum are "
            "known in these inputs)");
  for (const auto& r : out.rules) {
    EXPECT_FALSE(r.applied) << r.name;
    EXPECT_STREQ(rule_state_name(r), "NOT APPLIED") << r.name;
  }
  in.results = {make_host("h", 150)};  // GPU ranks, no topology, no link state
  out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kPass);
  EXPECT_EQ(verdict_line(out).rfind("PASS on 3 of 6 rules; not applied: links-at-max (", 0), 0u) << verdict_line(out);
  EXPECT_TRUE(out.rules.front().applied);  // applied passes before the rules that were not applied
  EXPECT_FALSE(out.rules.back().applied);
  // --strict: what was not applied fails, for a harness that must not pass on it.
  in.not_applied_fails = true;
  out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  const std::string strict = verdict_line(out);
  EXPECT_EQ(strict.rfind("FAIL on 3 of 6 rules; not applied: ", 0), 0u) << strict;
  EXPECT_NE(strict.find("; --strict: a rule not applied fails"), std::string::npos) << strict;
}

// The seed's node: 8 RTX 3090s at 1.17 GB/s of all_reduce busbw, an nccl-tests log imported with no
// topology. Its link rules are held against the bus of its GPU model (PCIe Gen4 x16, said to come from the
// model name) and fail; stable-points has one sample per row (p95 = median) and is not applied, not passed.
TEST(RuleEngine, ImportedSeedLogFailsAgainstItsGpuModelsBus) {
  const std::string path = std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-8x3090-seed.log";
  std::optional<ResultSet> rs = nccl_tests_result_set_of(path, read_input_file("FILE", path));
  ASSERT_TRUE(rs.has_value());
  ReportInputs in;
  in.results = {{path, *rs}};
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  for (const auto& r : out.rules) {
    if (r.name == "busbw-vs-link" || r.name == "busbw-vs-link-warn") {
      EXPECT_TRUE(r.applied) << r.name;
      EXPECT_EQ(r.status, r.name == "busbw-vs-link" ? Status::kFail : Status::kWarn) << r.name;
      EXPECT_NE(r.message.find("PCIe Gen4 x16 (31.5 GB/s), the bus of NVIDIA GeForce RTX 3090 by its model name"),
                std::string::npos)
          << r.message;
      ASSERT_FALSE(r.points.empty());
      EXPECT_EQ(r.points[0].size_bytes, 128u << 20);  // the largest size, 1.99 GB/s
      EXPECT_NE(r.points[0].note.find("expected 12.0-27.4 GB/s"), std::string::npos) << r.points[0].note;
    }
    if (r.name == "stable-points") {
      EXPECT_FALSE(r.applied);
      EXPECT_EQ(r.message,
                "not applied: every point is one sample (imported nccl-tests rows: p95 = median by construction)");
    }
  }
  const std::string line = verdict_line(out);
  EXPECT_EQ(line.rfind("FAIL on 4 of 6 rules (1 failed, 1 warned, 2 passed); not applied: ", 0), 0u) << line;
  EXPECT_NE(line.find("stable-points (every point is one sample"), std::string::npos) << line;
}

// A user's rule whose op or sizes select no measured point warns and names what it asked for and what
// was measured: a qualification cannot pass on a rule that checked nothing.
TEST(RuleEngine, AUserRuleThatMatchesNoMeasuredPointWarns) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  auto out =
      evaluate_report(in, {rule_of(R"({"name": "sr", "op": "sendrecv", "metric": "busbw_gbps", "at_least": 1})")});
  EXPECT_EQ(out.verdict, Status::kWarn);
  EXPECT_EQ(out.warned, 1u);
  ASSERT_EQ(out.rules.size(), 1u);
  EXPECT_FALSE(out.rules[0].applied);
  EXPECT_EQ(out.rules[0].message,
            "not applied: matches no measured point (op sendrecv, size any); measured: all_reduce at 1K..1M");
  out = evaluate_report(in, {rule_of(R"({"name": "big", "op": "all_reduce", "sizes": ["1G", "2G"],
      "metric": "busbw_gbps", "at_least": 1})")});
  EXPECT_EQ(out.verdict, Status::kWarn);
  EXPECT_NE(out.rules[0].message.find("(op all_reduce, size 1G..2G)"), std::string::npos) << out.rules[0].message;
  // The same rule on a point it does select is applied.
  out = evaluate_report(in, {rule_of(R"({"name": "big", "op": "all_reduce", "sizes": ["1M", "2G"],
      "metric": "busbw_gbps", "at_least": 1})")});
  EXPECT_EQ(out.verdict, Status::kPass);
  EXPECT_TRUE(out.rules[0].applied);
  // Without any measured point the rule is not applied (grey), not a warning about its selector.
  in.results.clear();
  out = evaluate_report(in, {rule_of(R"({"name": "sr", "op": "sendrecv", "metric": "busbw_gbps", "at_least": 1})")});
  EXPECT_EQ(out.warned, 0u);
  EXPECT_EQ(out.not_applied, 1u);
}

TEST(RuleEngine, FailedPointFailsAndItsTimingsAreNotValues) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.results[0].doc.records[0].error = "NCCL error";
  in.results[0].doc.records[0].stats = {};
  const auto out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  EXPECT_EQ(out.rules.front().name, "no-failed-point");
}

TEST(RuleEngine, BaselineRuleReportsRegressionsAndMissingPoints) {
  ReportInputs in;
  in.results = {make_host("h", 80)};
  in.baseline = {make_host("h", 100)};
  in.baseline[0].doc.records.pop_back();  // the largest point is new
  const auto out = evaluate_report(in, {rule_of(R"({"name": "b", "metric": "busbw_gbps", "baseline_within_pct": 5})")});
  EXPECT_EQ(out.verdict, Status::kFail);
  std::size_t missing = 0;
  for (const auto& p : out.rules[0].points) missing += p.note.find("missing from the baseline") == 0;
  EXPECT_EQ(missing, 1u);
  EXPECT_EQ(out.compared.size(), in.results[0].doc.records.size());
  EXPECT_EQ(out.compare_metric, "busbw_gbps");
}

TEST(RuleEngine, MadRuleAndNodeDiagnosis) {
  ReportInputs in;
  for (int i = 0; i < 4; ++i) in.results.push_back(make_host("n" + std::to_string(i), 100 + i));
  in.results.push_back(make_host("bad", 50));
  const auto out = evaluate_report(in, {rule_of(R"({"name": "m", "metric": "busbw_gbps", "mad_outlier_k": 3,
      "severity": "warn"})")});
  EXPECT_EQ(out.verdict, Status::kWarn);
  ASSERT_EQ(out.hosts.size(), 5u);
  EXPECT_EQ(out.hosts[0].host, "bad");
  EXPECT_GT(out.hosts[0].outliers, 0u);
  EXPECT_EQ(out.hosts[1].outliers, 0u);
}

}  // namespace
}  // namespace pipebench
