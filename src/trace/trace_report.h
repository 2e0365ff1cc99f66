// SPDX-License-Identifier: Apache-2.0
// `pipebench trace` output: the per-device tables on the console and the JSON file
// ("schema": "pipebench.trace/1", results/README.md).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "trace/plan_check.h"
#include "trace/profile.h"

namespace pipebench {

inline constexpr const char* kTraceSchema = "pipebench.trace/1";

// top_rows: breakdown rows shown per device (0: all); the JSON always has all of them.
void print_trace_report(std::ostream& out, const TraceProfile& p, const PlanCheck* check, int top_rows);

[[nodiscard]] nlohmann::json trace_to_json(const TraceProfile& p, const PlanCheck* check);

}  // namespace pipebench
