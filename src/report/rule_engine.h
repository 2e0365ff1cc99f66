// SPDX-License-Identifier: Apache-2.0
// The rule engine: applies rules to a report's inputs and gives each rule its status and points, the
// verdict (FAIL when a fail rule fails, WARN when only warn rules do, else PASS), the baseline
// compare table and the node diagnosis.
#pragma once

#include <cstddef>
#include <vector>

#include "io/report_model.h"
#include "report/rule.h"

namespace pipebench {

// Points one rule keeps for report.json and the report's tables; `checked` and `offending` count them
// all. Without a cap 1000 rules over 100k records held 100M points (2.3 GB for 100k rules on 10 records,
// a 262 MB report.json); the HTML shows at most kMaxTableRows (400) of them anyway. The offending points
// are kept first (the worst status first), then passing ones in the order they were checked.
inline constexpr std::size_t kMaxRulePoints = 1000;

// The topology that applies to a results input: its own system.topology, else the one of its host among
// `inputs.topologies` (or the only one when there is a single host). nullptr when none is known.
[[nodiscard]] const TopologyFile* topology_for(const ReportInputs& inputs, const InputFile<ResultSet>& in);

// A check's outcome before its points, named as report.json names it.
[[nodiscard]] RuleOutcome new_outcome(std::string name, std::string metric, std::string comparison, Status severity);

[[nodiscard]] RuleOutcome evaluate_rule(const ReportInputs& inputs, const Rule& rule);

// Every rule, the verdict, and (with a baseline) the compare table for the first baseline rule's metric
// and percentage (busbw_gbps and 5% without one), and (with 3 or more hosts) the node diagnosis.
[[nodiscard]] ReportOutcome evaluate_report(const ReportInputs& inputs, const std::vector<Rule>& rules);

}  // namespace pipebench
