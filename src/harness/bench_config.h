// SPDX-License-Identifier: Apache-2.0
// BenchConfig: the immutable settings of a measurement sweep, built by the CLI, read by the harness.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend_factory.h"
#include "collectives/op.h"
#include "core/dtype.h"

namespace pipebench {

struct BenchConfig {
  std::vector<std::string> ops = {"all_reduce"};
  std::vector<std::uint64_t> sizes_bytes;
  std::vector<DType> dtypes = {DType::kFloat};
  std::vector<RedOp> redops = {RedOp::kSum};
  OpParams params;
  std::vector<int> group;  // empty: every rank; else the ops run on these ranks only
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 1;   // -g
  int iters = 20;             // -n: ops per timed batch (the upper bound when budgeted)
  int warmup = 5;             // -w: untimed ops before the batches of each point
  int reps = 10;              // --reps: timed batches per point
  int checks = 1;             // -c: data-check runs per point, 0 = off
  bool graph = false;         // -G
  double timeout_s = -1;      // -T: seconds per point; 0 = none; <0 = from the point (harness/watchdog.h)
  bool quiet = false;         // --quiet: no progress lines on stderr
  double point_budget_s = 0;  // >0: choose ops per batch so a point takes about this long
  std::string json_path;
  std::string csv_path;
  std::string plan_path;                    // bench --plan: time the distinct messages of this plan instead
  std::string plan_schedule;                // --schedule: only this schedule of the plan (empty: all)
  std::vector<std::string> benchmark_args;  // --benchmark_* flags for Google Benchmark
};

}  // namespace pipebench
