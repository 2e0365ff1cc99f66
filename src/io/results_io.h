// SPDX-License-Identifier: Apache-2.0
// The results file ("schema": "pipebench.results/1"): what bench, pairs and bench --plan write.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/predictor.h"

namespace pipebench {

// Which links each transfer crosses, from the topology embedded in a results file (system.topology
// pairs[].path, system.devices for rank -> GPU). Empty when the file has none.
[[nodiscard]] PathModel paths_from_results(const nlohmann::json& results);

}  // namespace pipebench
