// SPDX-License-Identifier: Apache-2.0
// `pipebench trace` output: the per-device tables on the console (the JSON file: io/trace_io.h).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "trace/plan_check.h"
#include "trace/profile.h"

namespace pipebench {

// top_rows: breakdown rows shown per device (0: all); the JSON always has all of them.
// One row of the collectives table (op, elements, bytes, dtype, count, group, source), shared by the
// one-profile and the job reports.
void print_collective_row(std::ostream& out, const CollectiveRow& c);

void print_trace_report(std::ostream& out, const TraceProfile& p, const PlanCheck* check, int top_rows);

}  // namespace pipebench
