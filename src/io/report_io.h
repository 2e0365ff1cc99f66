// SPDX-License-Identifier: Apache-2.0
// The report's JSON ("schema": "pipebench.report/1", results/README.md): the verdict, every rule with
// its status, message and checked points, and the inputs it read.
#pragma once

#include <nlohmann/json.hpp>

#include "io/report_model.h"

namespace pipebench {

inline constexpr const char* kReportSchema = "pipebench.report/1";

[[nodiscard]] nlohmann::json report_to_json(const ReportInputs& inputs, const ReportOutcome& outcome);

}  // namespace pipebench
