// SPDX-License-Identifier: Apache-2.0
// Fleet baselines (as SuperBench's `generate-baseline`): `report --make-baseline OUT RESULTS...` folds many
// nodes' results into one point per op, size and hardware fingerprint (median and spread of the bus
// bandwidth), and `report --baseline OUT` flags the new points that fall below that band.
#pragma once

#include <vector>

#include "io/report_model.h"

namespace pipebench {

// One point per fingerprint over every measured record (failed points left out) of `results`, in the order
// first seen. Throws UsageError when no file holds a measured record.
[[nodiscard]] FleetBaseline make_fleet_baseline(const std::vector<InputFile<ResultSet>>& results);

// The built-in check "fleet-baseline": a new point fails when its bus bandwidth is below median - k x spread
// of its baseline point and more than 5 % below the median (so that identical nodes, spread 0, do not turn
// noise into failures); a point without a baseline point is listed as a warning. k: the report's --mad-k.
[[nodiscard]] RuleOutcome check_fleet_baseline(const std::vector<InputFile<ResultSet>>& results,
                                               const FleetBaseline& fleet, double k);

}  // namespace pipebench
