// SPDX-License-Identifier: Apache-2.0
// The plan file ("schema": "pipebench.plan/1"): the output of `pipebench plan --json`, the input of
// `bench --plan` and `predict`.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "megatron/plan.h"

namespace pipebench {

inline constexpr const char* kPlanSchema = "pipebench.plan/1";

[[nodiscard]] nlohmann::json plan_to_json(const Plan& plan);

// Reads a plan file; throws UsageError naming `flag` and the file when it is missing, not JSON, or of
// another schema or version.
[[nodiscard]] nlohmann::json load_plan_json(const std::string& flag, const std::string& path);

}  // namespace pipebench
