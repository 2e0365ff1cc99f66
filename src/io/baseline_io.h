// SPDX-License-Identifier: Apache-2.0
// The fleet baseline file (pipebench.baseline/1, results/README.md): per op, dtype, reduction, placement,
// size, rank count and hardware fingerprint (link class, GPU model, NCCL and driver versions), the median
// bus bandwidth over many nodes' results and its spread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/report_model.h"

namespace pipebench {

inline constexpr const char* kBaselineSchema = "pipebench.baseline/1";

[[nodiscard]] nlohmann::json baseline_to_json(const FleetBaseline& b);

// Throws UsageError naming `where` and the field: a missing or mistyped field, a negative or non-finite
// bandwidth, min > median or median > max, fewer than 1 sample, a key given twice.
[[nodiscard]] FleetBaseline baseline_from_json(const nlohmann::json& doc, const std::string& where);

}  // namespace pipebench
