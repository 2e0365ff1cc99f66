// SPDX-License-Identifier: Apache-2.0
#include "report/rule.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "core/suggest.h"
#include "core/terminal_text.h"
#include "core/units.h"
#include "report/rules_yaml.h"

namespace pipebench {

const char* comparison_name(Comparison c) {
  switch (c) {
    case Comparison::kAtMost:
      return "at_most";
    case Comparison::kBaselineWithinPct:
      return "baseline_within_pct";
    case Comparison::kMadOutlierK:
      return "mad_outlier_k";
    case Comparison::kAtLeast:
      break;
  }
  return "at_least";
}

namespace {

std::vector<std::string> metric_list() {
  std::vector<std::string> out;
  std::istringstream in(metric_names());
  for (std::string word; std::getline(in, word, ',');) {
    const auto first = word.find_first_not_of(' ');
    if (first != std::string::npos) out.push_back(word.substr(first));
  }
  return out;
}

Rule make_rule(const char* name, const char* metric, Comparison c, double threshold, Status severity,
               bool largest = false, double min_spread_us = 0) {
  Rule r;
  r.name = name;
  r.metric = find_metric(metric);
  r.comparison = c;
  r.threshold = threshold;
  r.severity = severity;
  r.largest_size_only = largest;
  r.min_spread_us = min_spread_us;
  return r;
}

std::uint64_t size_value(const nlohmann::json& v, const std::string& where) {
  if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() > 0)) return v.get<std::uint64_t>();
  if (v.is_string()) return parse_size_bytes(where + " sizes", v.get<std::string>());
  throw UsageError(where + ": sizes must be [min, max] sizes such as [\"1M\", \"1G\"]");
}

double number_value(const nlohmann::json& v, const std::string& where, const char* key) {
  double x = NAN;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    // YAML scalars arrive as strings when yaml-cpp could not tell their type.
    std::istringstream in(v.get<std::string>());
    in >> x;
    if (!in || !in.eof()) x = NAN;
  }
  if (!std::isfinite(x)) throw UsageError(where + ": " + key + " must be a finite number");
  return x;
}

void parse_comparison(const nlohmann::json& j, const std::string& where, Rule& r) {
  static const std::pair<const char*, Comparison> kComparisons[] = {
      {"at_least", Comparison::kAtLeast},
      {"at_most", Comparison::kAtMost},
      {"baseline_within_pct", Comparison::kBaselineWithinPct},
      {"mad_outlier_k", Comparison::kMadOutlierK}};
  int found = 0;
  for (const auto& [key, c] : kComparisons) {
    if (!j.contains(key)) continue;
    ++found;
    r.comparison = c;
    r.threshold = number_value(j.at(key), where, key);
  }
  if (found != 1) {
    throw UsageError(where + ": needs exactly one comparison of at_least, at_most, baseline_within_pct, mad_outlier_k");
  }
  if (r.comparison == Comparison::kBaselineWithinPct && r.threshold < 0) {
    throw UsageError(where + ": baseline_within_pct must be >= 0");
  }
  if (r.comparison == Comparison::kMadOutlierK && !(r.threshold > 0)) {
    throw UsageError(where + ": mad_outlier_k must be > 0");
  }
}

Rule parse_rule(const nlohmann::json& j, const std::string& where) {
  static const std::set<std::string> kKeys = {
      "name",          "op",       "sizes",        "metric",       "at_least", "at_most", "baseline_within_pct",
      "mad_outlier_k", "severity", "largest_size", "min_spread_us"};
  if (!j.is_object()) throw UsageError(where + ": a rule is an object {name, metric, comparison, ...}");
  for (const auto& [key, value] : j.items()) {
    if (kKeys.count(key) == 0) throw UsageError(where + ": unknown key '" + quotable(key) + "'");
  }
  Rule r;
  if (!j.contains("name") || !j.at("name").is_string() || j.at("name").get<std::string>().empty()) {
    throw UsageError(where + ": needs a name");
  }
  r.name = j.at("name").get<std::string>();
  const std::string at = where + " '" + quotable(r.name) + "'";
  // An op that is no op is bad input (exit 2), not a rule that matches nothing: a rules file is a
  // qualification's contract, and a typo in it would otherwise let every run of it pass unnoticed; the
  // list of ops is fixed, so the name can be judged before any result is read.
  if (j.contains("op")) {
    r.op = j.at("op").is_string() ? j.at("op").get<std::string>() : "";
    const OpRegistry& ops = OpRegistry::instance();
    if (!ops.get(r.op)) {
      throw UsageError(at + ": unknown op " + j.at("op").dump() + did_you_mean(r.op, ops.names()) + " (" +
                       ops.name_list() + ")");
    }
  }
  const std::string metric =
      j.contains("metric") && j.at("metric").is_string() ? j.at("metric").get<std::string>() : "";
  r.metric = find_metric(metric);
  if (r.metric == nullptr) {
    throw UsageError(at + ": unknown metric '" + quotable(metric) + "'" + did_you_mean(metric, metric_list()) + " (" +
                     metric_names() + ")");
  }
  if (j.contains("sizes")) {
    const auto& s = j.at("sizes");
    if (!s.is_array() || s.size() != 2) throw UsageError(at + ": sizes must be [min, max]");
    r.sizes = {size_value(s[0], at), size_value(s[1], at)};
    if (r.sizes->first > r.sizes->second) throw UsageError(at + ": sizes: min > max");
  }
  if (j.contains("largest_size")) {
    if (!j.at("largest_size").is_boolean()) throw UsageError(at + ": largest_size must be true or false");
    r.largest_size_only = j.at("largest_size").get<bool>();
  }
  parse_comparison(j, at, r);
  if (j.contains("min_spread_us")) {
    if (r.metric->kind != MetricKind::kP95OverMedian) {
      throw UsageError(at + ": min_spread_us applies to metric p95_over_median only");
    }
    r.min_spread_us = number_value(j.at("min_spread_us"), at, "min_spread_us");
    if (r.min_spread_us < 0) throw UsageError(at + ": min_spread_us must be >= 0");
  }
  if (j.contains("severity")) {
    const std::string sev = j.at("severity").is_string() ? j.at("severity").get<std::string>() : "";
    if (sev == "warn") {
      r.severity = Status::kWarn;
    } else if (sev != "fail") {
      throw UsageError(at + ": severity must be fail or warn, not " + j.at("severity").dump());
    }
  }
  return r;
}

}  // namespace

std::vector<Rule> default_rules() {
  return {
      make_rule("no-wrong-values", "wrong", Comparison::kAtMost, 0, Status::kFail),
      make_rule("no-failed-point", "failed", Comparison::kAtMost, 0, Status::kFail),
      make_rule("links-at-max", "link_below_max", Comparison::kAtMost, 0, Status::kFail),
      make_rule("busbw-vs-link", "fraction_of_link", Comparison::kAtLeast, 0.7, Status::kFail, true),
      make_rule("busbw-vs-link-warn", "fraction_of_link", Comparison::kAtLeast, 0.85, Status::kWarn, true),
      make_rule("stable-points", "p95_over_median", Comparison::kAtMost, 1.2, Status::kWarn, false,
                kDefaultStabilityFloorUs),
  };
}

std::vector<Rule> parse_rules(const nlohmann::json& doc, const std::string& file) {
  const nlohmann::json* list = &doc;
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      if (key != "rules")
        throw UsageError(file + ": unknown key '" + quotable(key) + "' (a rules file is {\"rules\": [...]})");
    }
    if (!doc.contains("rules")) throw UsageError(file + ": no \"rules\" list");
    list = &doc.at("rules");
  }
  if (!list->is_array()) throw UsageError(file + ": \"rules\" must be a list of rules");
  if (list->empty()) throw UsageError(file + ": the list of rules is empty (it would pass any input)");
  if (list->size() > kMaxRules) {
    throw UsageError(file + ": " + std::to_string(list->size()) + " rules, more than the limit of " +
                     std::to_string(kMaxRules));
  }
  std::vector<Rule> rules;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->size(); ++i) {
    rules.push_back(parse_rule((*list)[i], file + ": rule #" + std::to_string(i + 1)));
    if (!names.insert(rules.back().name).second) {
      throw UsageError(file + ": rule #" + std::to_string(i + 1) + " '" + quotable(rules.back().name) +
                       "': name used twice");
    }
  }
  return rules;
}

std::vector<Rule> read_rules_file(const std::string& file) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec))) {
    throw UsageError("--rules " + file + ": does not exist");
  }
  if (!std::filesystem::is_regular_file(file, ec)) throw UsageError("--rules " + file + ": not a regular file");
  if (std::filesystem::file_size(file, ec) > kMaxRulesFileBytes) {
    throw UsageError("--rules " + file + ": larger than " + std::to_string(kMaxRulesFileBytes >> 10) +
                     " KiB (a rules file lists at most " + std::to_string(kMaxRules) + " rules)");
  }
  const std::string text = read_input_file("--rules", file);  // a regular file only
  if (text.size() > kMaxRulesFileBytes) throw UsageError("--rules " + file + ": grew while it was read");
#if PB_HAVE_YAMLCPP
  return parse_rules(rules_yaml_to_json(text, file), file);  // YAML reads JSON too
#else
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError("--rules " + file + ": not JSON (" + json_error_text(e) +
                     "); YAML rules need pipebench built with yaml-cpp");
  }
  return parse_rules(doc, file);
#endif
}

}  // namespace pipebench
