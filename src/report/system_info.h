// SPDX-License-Identifier: Apache-2.0
// The "system" block of a report: hosts, devices per rank, driver/CUDA/NCCL/MPI versions and the
// allow-listed environment. Collective over every process.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend.h"
#include "launch/world.h"

namespace pipebench {

[[nodiscard]] nlohmann::json collect_system(const World& world, const Backend& backend);

}  // namespace pipebench
