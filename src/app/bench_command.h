// SPDX-License-Identifier: Apache-2.0
// `pipebench bench` and the sweep machinery `pipebench run` reuses.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "harness/bench_config.h"
#include "harness/sweep.h"
#include "launch/world.h"
#include "report/record.h"

namespace pipebench {

// Checks the config against the backend (ranks in range, -G support, memory) before anything runs.
// Collective. Throws UsageError.
void validate_for_backend(const BenchConfig& config, const Backend& backend, const World& world);

// The "# ..." lines above the tables: versions, ranks, settings, devices (nccl-tests' "Using devices").
void print_preamble(std::ostream& out, const BenchConfig& config, const Backend& backend,
                    const nlohmann::json& system);

// Builds the backend, runs the sweep, writes the requested files. Returns the exit status. On rank 0,
// `collected` (if given) receives every record.
[[nodiscard]] int run_bench_command(const BenchConfig& config, const World& world,
                                    std::vector<ResultRecord>* collected = nullptr);

// The same on a backend already built and validated (validate_for_backend).
[[nodiscard]] int run_bench_on(Backend& backend, const BenchConfig& config, const World& world,
                               std::vector<ResultRecord>* collected = nullptr);

// Exit status of a finished sweep: 3 when any value was wrong, 1 when a point failed, else 0.
[[nodiscard]] int exit_status(const SweepSummary& s);

// The "config" block of a results file.
[[nodiscard]] nlohmann::json bench_config_json(const BenchConfig& config);

}  // namespace pipebench
