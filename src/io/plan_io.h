// SPDX-License-Identifier: Apache-2.0
// The plan file ("schema": "pipebench.plan/1"): the output of `pipebench plan --json`, the input of
// `bench --plan`, `predict` and `trace --plan`. Written from a Plan and read back into one.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "megatron/plan.h"

namespace pipebench {

inline constexpr const char* kPlanSchema = "pipebench.plan/1";

[[nodiscard]] nlohmann::json plan_to_json(const Plan& plan);

// The Plan of a plan file's JSON. `where` names the source in messages ("--plan p.json"). Throws
// UsageError naming it and the field for another schema, a missing field, a field of the wrong type, or
// groups that do not follow from the layout's sizes and rank order.
[[nodiscard]] Plan plan_from_json(const nlohmann::json& j, const std::string& where);

// Reads a plan file; throws UsageError naming `flag` and the file when it is missing, not JSON, or not a
// valid plan (see plan_from_json).
[[nodiscard]] Plan load_plan(const std::string& flag, const std::string& path);

// Writes the plan file (`plan --json`, run's plan.json) atomically, as core/file_io.h's write_output_file.
void save_plan(const std::string& path, const Plan& plan);

}  // namespace pipebench
