// SPDX-License-Identifier: Apache-2.0
// The prediction file ("schema": "pipebench.prediction/1", `predict --json`) and the Chrome trace of a
// simulated schedule (`predict --trace`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/prediction_file.h"
#include "sim/predictor.h"

namespace pipebench {

inline constexpr const char* kPredictionSchema = "pipebench.prediction/1";

[[nodiscard]] PredictionFile prediction_file(const Prediction& p);
[[nodiscard]] nlohmann::json prediction_to_json(const PredictionFile& p);
[[nodiscard]] nlohmann::json prediction_to_json(const Prediction& p);

// Throws UsageError naming `where` and the field for another schema, a missing or mistyped field.
[[nodiscard]] PredictionFile prediction_from_json(const nlohmann::json& j, const std::string& where);

// Chrome trace (complete events; one process per rank, threads compute / send / recv / collectives).
[[nodiscard]] nlohmann::json chrome_trace(const SchedulePrediction& s);

}  // namespace pipebench
