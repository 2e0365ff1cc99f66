// SPDX-License-Identifier: Apache-2.0
// The command-line line of a simulator ModelError: names the flag that gave the input.
#pragma once

#include <string>

#include "core/error.h"
#include "sim/model_error.h"

namespace pipebench {

// table_path: --table; schedule: --schedule as passed to predict().
[[nodiscard]] UsageError with_flags(const ModelError& e, const std::string& table_path, const std::string& schedule);

}  // namespace pipebench
