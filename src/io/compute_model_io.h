// SPDX-License-Identifier: Apache-2.0
// A compute model as JSON: how `run --profile` hands the per-rank compute that rank 0 measured from the
// job's profile to every rank of the replay (a broadcast of bytes). Written and read by the same build.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/compute_model.h"

namespace pipebench {

[[nodiscard]] nlohmann::json compute_model_to_json(const ComputeModel& m);

// Throws Error for a missing field or one of the wrong type, or a time that is not finite and >= 0.
[[nodiscard]] ComputeModel compute_model_from_json(const nlohmann::json& j);

}  // namespace pipebench
