// SPDX-License-Identifier: Apache-2.0
#include "report/rule.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/pipebench_rule_test_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string usage_error(const nlohmann::json& doc) {
  try {
    (void)parse_rules(doc, "rules.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Rule, ParsesTheIssueExample) {
  const auto rules = parse_rules(nlohmann::json::parse(R"({"rules": [{"name": "ar-busbw", "op": "all_reduce",
      "metric": "busbw_gbps", "sizes": ["1M", "1M"], "at_least": 1000000}]})"),
                                 "r.json");
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].name, "ar-busbw");
  EXPECT_EQ(rules[0].op, "all_reduce");
  EXPECT_EQ(rules[0].metric->name, "busbw_gbps");
  EXPECT_EQ(rules[0].comparison, Comparison::kAtLeast);
  EXPECT_EQ(rules[0].threshold, 1e6);
  ASSERT_TRUE(rules[0].sizes);
  EXPECT_EQ(rules[0].sizes->first, 1u << 20);
  EXPECT_EQ(rules[0].severity, Status::kFail);  // default
}

TEST(Rule, EveryComparisonAndSeverity) {
  const auto rules = parse_rules(nlohmann::json::parse(R"([
      {"name": "a", "metric": "stats.p95_us", "at_most": 50, "severity": "warn"},
      {"name": "b", "metric": "busbw_gbps", "baseline_within_pct": 5},
      {"name": "c", "metric": "busbw_gbps", "mad_outlier_k": 3, "op": "pair"},
      {"name": "d", "metric": "fraction_of_link", "at_least": 0.7, "largest_size": true, "sizes": [8, 1024]}])"),
                                 "r.json");
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].severity, Status::kWarn);
  EXPECT_EQ(rules[0].comparison, Comparison::kAtMost);
  EXPECT_EQ(rules[1].comparison, Comparison::kBaselineWithinPct);
  EXPECT_EQ(rules[2].comparison, Comparison::kMadOutlierK);
  EXPECT_TRUE(rules[3].largest_size_only);
  EXPECT_EQ(rules[3].sizes->second, 1024u);
}

TEST(Rule, BadRulesNameTheFileRuleAndFault) {
  auto e = usage_error({{"rules", {{{"name", "x"}, {"metric", "busbw"}, {"at_least", 1}}}}});
  EXPECT_NE(e.find("rules.json: rule #1 'x': unknown metric 'busbw'"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "y"}, {"op", "allreduce"}, {"metric", "busbw_gbps"}, {"at_least", 1}}}}});
  EXPECT_NE(e.find("rule #1 'y': unknown op"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "z"}, {"metric", "busbw_gbps"}, {"at_least", 1}, {"at_most", 2}}}}});
  EXPECT_NE(e.find("exactly one comparison"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "z"}, {"metric", "busbw_gbps"}}}}});
  EXPECT_NE(e.find("exactly one comparison"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "s"}, {"metric", "wrong"}, {"at_most", 0}, {"severity", "error"}}}}});
  EXPECT_NE(e.find("severity must be fail or warn"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "t"}, {"metric", "wrong"}, {"at_most", 0}, {"treshold", 1}}}}});
  EXPECT_NE(e.find("unknown key 'treshold'"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "u"}, {"metric", "wrong"}, {"at_most", 0}, {"sizes", {"1M", "1K"}}}}}});
  EXPECT_NE(e.find("min > max"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "v"}, {"metric", "busbw_gbps"}, {"mad_outlier_k", 0}}}}});
  EXPECT_NE(e.find("mad_outlier_k must be > 0"), std::string::npos) << e;
  e = usage_error({{"rulez", nlohmann::json::array()}});
  EXPECT_NE(e.find("unknown key 'rulez'"), std::string::npos) << e;
  e = usage_error(
      {{"rules",
        {{{"name", "w"}, {"metric", "wrong"}, {"at_most", 0}}, {{"name", "w"}, {"metric", "wrong"}, {"at_most", 0}}}}});
  EXPECT_NE(e.find("rule #2 'w': name used twice"), std::string::npos) << e;
}

TEST(Rule, DefaultsAreTheDocumentedOnes) {
  const auto rules = default_rules();
  ASSERT_EQ(rules.size(), 6u);
  for (const auto& r : rules) ASSERT_NE(r.metric, nullptr) << r.name;
  EXPECT_EQ(rules[0].metric->name, "wrong");
  EXPECT_EQ(rules[0].threshold, 0);
  EXPECT_EQ(rules[3].metric->name, "fraction_of_link");
  EXPECT_EQ(rules[3].threshold, 0.7);
  EXPECT_TRUE(rules[3].largest_size_only);
  EXPECT_EQ(rules[4].threshold, 0.85);
  EXPECT_EQ(rules[4].severity, Status::kWarn);
  EXPECT_EQ(rules[5].metric->name, "p95_over_median");
  EXPECT_EQ(rules[5].threshold, 1.2);
  EXPECT_EQ(rules[5].severity, Status::kWarn);
  EXPECT_EQ(rules[5].min_spread_us, kDefaultStabilityFloorUs);
}

// A mistyped op is bad input with the nearest op named (a rules file is a qualification's contract: a rule
// that silently matched nothing would pass every run); so is a mistyped metric.
TEST(Rule, AMistypedOpOrMetricSuggestsTheNearest) {
  auto e = usage_error({{"rules", {{{"name", "y"}, {"op", "allreduce"}, {"metric", "busbw_gbps"}, {"at_least", 1}}}}});
  EXPECT_NE(e.find("rules.json: rule #1 'y': unknown op \"allreduce\" (did you mean all_reduce?)"), std::string::npos)
      << e;
  e = usage_error({{"rules", {{{"name", "y"}, {"op", "sendrecf"}, {"metric", "busbw_gbps"}, {"at_least", 1}}}}});
  EXPECT_NE(e.find("(did you mean sendrecv?)"), std::string::npos) << e;
  e = usage_error({{"rules", {{{"name", "x"}, {"metric", "busbw_gpbs"}, {"at_least", 1}}}}});
  EXPECT_NE(e.find("unknown metric 'busbw_gpbs' (did you mean busbw_gbps?)"), std::string::npos) << e;
}

// The noise floor of a p95/median rule is a parameter: a finite number >= 0, and only for that metric.
TEST(Rule, MinSpreadIsTheStabilityRulesNoiseFloor) {
  const auto rules = parse_rules(
      nlohmann::json::parse(R"([{"name": "s", "metric": "p95_over_median", "at_most": 1.2, "min_spread_us": 2.5},
                                {"name": "t", "metric": "p95_over_median", "at_most": 1.2}])"),
      "r.json");
  EXPECT_EQ(rules[0].min_spread_us, 2.5);
  EXPECT_EQ(rules[1].min_spread_us, 0);  // a user's rule has no floor unless it says so
  auto e = usage_error({{"rules", {{{"name", "s"}, {"metric", "time_us"}, {"at_most", 1}, {"min_spread_us", 5}}}}});
  EXPECT_NE(e.find("rule #1 's': min_spread_us applies to metric p95_over_median only"), std::string::npos) << e;
  e = usage_error(
      {{"rules", {{{"name", "s"}, {"metric", "p95_over_median"}, {"at_most", 1.2}, {"min_spread_us", -1}}}}});
  EXPECT_NE(e.find("min_spread_us must be >= 0"), std::string::npos) << e;
  e = usage_error(
      {{"rules", {{{"name", "s"}, {"metric", "p95_over_median"}, {"at_most", 1.2}, {"min_spread_us", "x"}}}}});
  EXPECT_NE(e.find("min_spread_us must be a finite number"), std::string::npos) << e;
}

TEST(Rule, ReadsJsonFiles) {
  const auto path = write_temp("r.json", R"({"rules": [{"name": "j", "metric": "time_us", "at_most": 10}]})");
  const auto rules = read_rules_file(path);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].metric->name, "time_us");
  EXPECT_THROW((void)read_rules_file(path + ".missing"), UsageError);
  std::remove(path.c_str());
}

#if PB_HAVE_YAMLCPP
TEST(Rule, ReadsYamlFilesAndNamesTheLineOfASyntaxError) {
  const auto path = write_temp("r.yaml",
                               "rules:\n"
                               "  - name: ar-busbw\n"
                               "    op: all_reduce\n"
                               "    metric: busbw_gbps\n"
                               "    sizes: [1M, 1G]\n"
                               "    at_least: 150.5\n"
                               "    severity: warn\n");
  const auto rules = read_rules_file(path);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].threshold, 150.5);
  EXPECT_EQ(rules[0].sizes->second, 1u << 30);
  EXPECT_EQ(rules[0].severity, Status::kWarn);
  const auto bad = write_temp("bad.yaml", "rules:\n  - name: x\n    metric: [unclosed\n");
  try {
    (void)read_rules_file(bad);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ": line "), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
  std::remove(bad.c_str());
}
#endif

}  // namespace
}  // namespace pipebench
