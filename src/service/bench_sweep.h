// SPDX-License-Identifier: Apache-2.0
// Measuring a sweep (bench, pairs, run and bench --plan call it): the checks of a BenchConfig against the
// backend, the one sweep run with its record outputs, and the exit status of a finished sweep.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "backend/backend.h"
#include "harness/record.h"
#include "harness/sweep.h"
#include "launch/world.h"
#include "service/bench_config.h"

namespace pipebench {

// Checks the config against the backend (ranks in range, -G support, memory) before anything runs.
// Collective. Throws UsageError.
void validate_for_backend(const BenchConfig& config, const Backend& backend, const World& world);

// Runs the sweep on a backend already built and validated (validate_for_backend), writes the requested files.
// Returns the exit status. On rank 0, `collected` (if given) receives every record.
[[nodiscard]] int run_bench_on(Backend& backend, const BenchConfig& config, const World& world,
                               std::vector<ResultRecord>* collected = nullptr);

// Exit status of a finished sweep: 3 when any value was wrong, 1 when a point failed, else 0.
[[nodiscard]] int exit_status(const SweepSummary& s);
// The same with nccl-tests' check: 7 when an op's average bus bandwidth fell below NCCL_TESTS_MIN_BW
// (x 0.9); started as an nccl-tests binary, 7 for wrong data too (nccl-tests' testNumResults).
[[nodiscard]] int exit_status(const SweepSummary& s, bool below_min_busbw, bool nccl_tests_binary);

// Of a sweep stopped by SIGINT/SIGTERM (s.interrupted_by): rank 0 says so on stderr with the points
// measured and the files that hold them; 128 + the signal (130, 143).
[[nodiscard]] int interrupted_status(const SweepSummary& s, const BenchConfig& config, const World& world);

// The "config" block of a results file.
[[nodiscard]] nlohmann::json bench_config_json(const BenchConfig& config);

}  // namespace pipebench
