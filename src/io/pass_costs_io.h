// SPDX-License-Identifier: Apache-2.0
// The pass costs bench --plan measured on rank 0's GPU (backend/pass_costs.h), as a results file records
// them ("pass_costs", results/README.md): each term's median, min and max in us and its samples, the P2P
// message, CUDA_DEVICE_MAX_CONNECTIONS (null when unset) and the GPU's name. predict --table and run read
// them back for the terms no profile gives.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/pass_costs.h"
#include "io/json_fields.h"

namespace pipebench {

[[nodiscard]] nlohmann::json pass_costs_to_json(const PassCosts& c);

// parent[key]; every number finite and >= 0, each term's min <= median <= max with 1 or more samples, else
// one UsageError line naming the source and the field ("pass_costs.sync_gap_us.median_us").
[[nodiscard]] PassCosts pass_costs_from_json(const JsonFields& f, const nlohmann::json& parent, const std::string& path,
                                             const std::string& key);

}  // namespace pipebench
