// SPDX-License-Identifier: Apache-2.0
// Rule: one check of a qualification report, `{name, op?, sizes?: [min, max], metric, one comparison,
// severity?}` (README.md, "pipebench report"). Rules come from the built-in defaults or a rules file:
// YAML through yaml-cpp where it was found at build time, JSON always (nlohmann-json; YAML reads JSON).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/report_model.h"
#include "report/metric.h"

namespace pipebench {

inline constexpr std::size_t kMaxRules = 1000;                // rules in one file
inline constexpr std::uint64_t kMaxRulesFileBytes = 1 << 20;  // a rules file's size

// The default noise floor of `p95_over_median` rules, in microseconds of p95 - median. A point whose p95 is
// within this of its median is stable whatever their ratio: at a few microseconds per op the ratio measures
// the timer and the launch, not the link. Where the number comes from: CUDA events time with a resolution
// of about 0.5 us (CUDA Runtime API, cudaEventElapsedTime), and a kernel launch costs a few microseconds of
// host time whose jitter (an interrupt or a scheduler tick on the launching thread) lands whole on one
// batch; on a healthy H200 (`make run`, one GPU) every one of the 19 of 70 points above p95/median 1.2 was
// a point of a few microseconds. 5 us keeps every point of 25 us or more to the ratio alone (5 / 25 = 0.2
// is the default ratio's margin), so only points too short for the ratio to mean anything are spared.
inline constexpr double kDefaultStabilityFloorUs = 5.0;

enum class Comparison { kAtLeast, kAtMost, kBaselineWithinPct, kMadOutlierK };

[[nodiscard]] const char* comparison_name(Comparison c);

struct Rule {
  std::string name;
  std::string op;  // empty: every op
  std::optional<std::pair<std::uint64_t, std::uint64_t>> sizes;
  bool largest_size_only = false;  // only each op's largest measured size
  const Metric* metric = nullptr;
  Comparison comparison = Comparison::kAtLeast;
  double threshold = 0;  // the limit, the percentage or K
  Status severity = Status::kFail;
  // p95_over_median only: a point whose p95 - median is below this many microseconds passes (the noise
  // floor, `min_spread_us` in a rules file; 0 in a user's rule unless given).
  double min_spread_us = 0;
};

// The defaults: 0 wrong values, no failed point, no link below its max generation/width, busbw at the
// largest size >= 0.7 x the narrowest link (warn below 0.85; only where a topology is known),
// p95/median <= 1.2 above a p95 - median spread of kDefaultStabilityFloorUs (warn).
[[nodiscard]] std::vector<Rule> default_rules();

// `{"rules": [...]}` or a bare list of 1 to kMaxRules rules. Throws UsageError "FILE: rule #N 'NAME': ..."
// naming the fault (with "did you mean" for a mistyped op or metric).
[[nodiscard]] std::vector<Rule> parse_rules(const nlohmann::json& doc, const std::string& file);

// Reads a rules file (YAML or JSON) of at most kMaxRulesFileBytes under report/rules_yaml.h's limits.
// Throws UsageError naming the file (and the line for YAML).
[[nodiscard]] std::vector<Rule> read_rules_file(const std::string& file);

}  // namespace pipebench
