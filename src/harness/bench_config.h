// SPDX-License-Identifier: Apache-2.0
// BenchConfig: the immutable settings of a measurement sweep, built by the CLI, read by the harness.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend_factory.h"
#include "collectives/op.h"
#include "core/dtype.h"
#include "core/split_expr.h"

namespace pipebench {

// -a: how a batch's time is combined over processes (nccl-tests -a: 0 rank 0, 1 mean, 2 min, 3 max).
enum class RankStat { kRank0 = 0, kMean = 1, kMin = 2, kMax = 3 };

struct BenchConfig {
  std::vector<std::string> ops = {"all_reduce"};
  std::vector<std::uint64_t> sizes_bytes;
  std::vector<DType> dtypes = {DType::kFloat};
  std::vector<RedOp> redops = {RedOp::kSum};
  OpParams params;
  std::vector<int> group;  // empty: every rank; else the ops run on these ranks only
  BackendKind backend = BackendKind::kAuto;
  int gpus_per_process = 1;             // -g
  std::vector<std::string> gpu_list;    // --gpus: indices, UUIDs or bus ids (launch/gpu_assignment.h)
  int iters = 20;                       // -n: ops per timed batch (the upper bound when budgeted)
  int warmup = 5;                       // -w: untimed ops before the batches of each point
  int reps = 10;                        // --reps: timed batches per point
  int checks = 1;                       // -c: data-check runs per point, 0 = off
  bool graph = false;                   // -G
  double timeout_s = -1;                // -T: seconds per point; 0 = none; <0 = from the point (harness/watchdog.h)
  bool quiet = false;                   // --quiet: no progress lines on stderr
  double point_budget_s = 0;            // >0: choose ops per batch so a point takes about this long
  int threads = 1;                      // -t: nccl-tests threads per process; the GPUs of -t x -g run from one thread
  int agg = 1;                          // -m: ops aggregated in one group call per iteration
  int cycles = 1;                       // -N: sweeps; 0 = until interrupted
  RankStat rank_stat = RankStat::kMax;  // -a
  int blocking = 0;                     // -z: 0 async, 1 sync+barrier per op, 2 sync per op, 3 per iteration
  bool cputime = false;                 // -C: report the host time spent issuing instead of completion
  bool timestamps = false;              // -S: a timestamp per record
  bool memory_report = false;           // -M
  bool parallel_init = false;           // -p
  bool per_iter_timing = false;         // -I: one sample per iteration
  int per_iter_skip = 0;                // -K: samples left out of the statistics
  int unalign_elems = 0;                // -u: send/recv pointers shifted by this many elements
  BufferOptions buffers;                // --alloc, -R
  std::optional<SplitRule> split;       // --split / NCCL_TESTS_SPLIT(_MASK): concurrent groups
  std::string json_path;
  std::string csv_path;
  std::string nccl_tests_json_path;  // -J: nccl-tests' JSON (one op)
  std::string jsonl_path;            // --jsonl: one JSON object per record, appended
  std::string prometheus_path;       // --prometheus: node-exporter text file, replaced after every record
  // Started as an nccl-tests binary (all_reduce_perf): its name; the output is nccl-tests' text only.
  std::string nccl_tests_program;
  std::vector<std::string> command_line;    // the words as typed, argv[0] first (-J's "args")
  std::uint64_t step_factor = 1;            // -f as given (-J's config)
  std::uint64_t step_bytes = 0;             // -i as given, when -f is 1
  std::string plan_path;                    // bench --plan: time the distinct messages of this plan instead
  std::string plan_schedule;                // --schedule: only this schedule of the plan (empty: all)
  std::vector<std::string> benchmark_args;  // --benchmark_* flags for Google Benchmark
};

}  // namespace pipebench
