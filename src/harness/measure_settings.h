// SPDX-License-Identifier: Apache-2.0
// MeasureSettings: how the harness measures a point (batches, warm-up, checks, timing over ranks, the
// watchdog). With SweepSpec it is all the measuring loop reads (harness/sweep.h, harness/point_runner.h):
// the backend, the GPUs and the output files are bench's own (service/bench_config.h), kept out of the
// harness so that it cannot come to depend on them.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"

namespace pipebench {

// -a: how a batch's time is combined over processes (nccl-tests -a: 0 rank 0, 1 mean, 2 min, 3 max).
enum class RankStat { kRank0 = 0, kMean = 1, kMin = 2, kMax = 3 };

struct MeasureSettings {
  int iters = 20;                       // -n: ops per timed batch (the upper bound when budgeted)
  int warmup = 5;                       // -w: untimed ops before the batches of each point
  int reps = 10;                        // --reps: timed batches per point
  int checks = 1;                       // -c: data-check runs per point, 0 = off
  bool graph = false;                   // -G
  double timeout_s = -1;                // -T: seconds per point; 0 = none; <0 = from the point (harness/watchdog.h)
  bool quiet = false;                   // --quiet: no progress lines on stderr
  double point_budget_s = 0;            // >0: choose ops per batch so a point takes about this long
  int agg = 1;                          // -m: ops aggregated in one group call per iteration
  RankStat rank_stat = RankStat::kMax;  // -a
  int blocking = 0;                     // -z: 0 async, 1 sync+barrier per op, 2 sync per op, 3 per iteration
  bool cputime = false;                 // -C: report the host time spent issuing instead of completion
  bool timestamps = false;              // -S: a timestamp per record
  int per_iter_skip = 0;                // -K: samples left out of the statistics
  int unalign_elems = 0;                // -u: send/recv pointers shifted by this many elements
  BufferOptions buffers;                // --alloc, -R
  // --benchmark_* flags, handed to Google Benchmark, which runs every point (its filter, its display and
  // its --benchmark_out file: harness/benchmark_flags.h).
  std::vector<std::string> benchmark_args;
};

}  // namespace pipebench
