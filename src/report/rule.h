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

#include "report/metric.h"
#include "report/report_model.h"

namespace pipebench {

inline constexpr std::size_t kMaxRules = 1000;                // rules in one file
inline constexpr std::uint64_t kMaxRulesFileBytes = 1 << 20;  // a rules file's size

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
};

// The defaults: 0 wrong values, no failed point, no link below its max generation/width, busbw at the
// largest size >= 0.7 x the narrowest link (warn below 0.85; only where a topology is known),
// p95/median <= 1.2 (warn).
[[nodiscard]] std::vector<Rule> default_rules();

// `{"rules": [...]}` or a bare list of 1 to kMaxRules rules. Throws UsageError "FILE: rule #N 'NAME': ..."
// naming the fault.
[[nodiscard]] std::vector<Rule> parse_rules(const nlohmann::json& doc, const std::string& file);

// Reads a rules file (YAML or JSON) of at most kMaxRulesFileBytes under report/rules_yaml.h's limits.
// Throws UsageError naming the file (and the line for YAML).
[[nodiscard]] std::vector<Rule> read_rules_file(const std::string& file);

}  // namespace pipebench
