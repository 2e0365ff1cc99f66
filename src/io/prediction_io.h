// SPDX-License-Identifier: Apache-2.0
// The prediction file ("schema": "pipebench.prediction/1", `predict --json`); the Chrome trace of a
// simulated schedule (`predict --trace`) is io/chrome_trace_text.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/predictor.h"

namespace pipebench {

inline constexpr const char* kPredictionSchema = "pipebench.prediction/1";

// Every member of the prediction but the schedules' `sim` (sim/predictor.h says which are optional).
[[nodiscard]] nlohmann::json prediction_to_json(const Prediction& p);

// The prediction back, its schedules' `sim` empty. Throws UsageError naming `where` and the field for
// another schema, a missing or mistyped field.
[[nodiscard]] Prediction prediction_from_json(const nlohmann::json& j, const std::string& where);

// Writes the prediction file (`predict --json`, run's prediction.json) atomically, as core/file_io.h's
// write_output_file.
void save_prediction(const std::string& path, const Prediction& p);

}  // namespace pipebench
