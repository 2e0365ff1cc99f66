// SPDX-License-Identifier: Apache-2.0
// pipebench.replay/1: a ReplayResult to and from JSON (schema in results/README.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "replay/replay.h"

namespace pipebench {

inline constexpr const char* kReplaySchema = "pipebench.replay/1";

[[nodiscard]] nlohmann::json replay_to_json(const ReplayResult& r, const std::string& plan_path);

// Throws UsageError naming `what` (the flag or file) for another schema or a malformed document.
[[nodiscard]] ReplayResult replay_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace pipebench
