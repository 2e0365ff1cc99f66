// SPDX-License-Identifier: Apache-2.0
// bench's lines outside its preamble and table: the notes on flags that mean nothing, or something else, on
// the chosen backend (stderr), -M's memory line (stdout) and the line of a sweep stopped by a signal (stderr).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "harness/measure_settings.h"
#include "harness/sweep.h"

namespace pipebench {

struct BenchNotes {
  const MeasureSettings& measure;
  bool gpu_ranks = true;       // the nccl backend; false: mpi
  int threads = 1;             // -t
  int gpus_per_process = 1;    // -g
  bool parallel_init = false;  // -p
};

// One "pipebench: note: ..." line per such flag; nothing when there is none.
void print_bench_notes(std::ostream& err, const BenchNotes& n);

// -M: nccl-tests prints initialisation, user-allocated and collective memory; this is what can be seen
// from outside NCCL, on the fullest rank.
struct BenchMemory {
  bool gpu_ranks = true;  // false: host memory (the MPI backend)
  std::uint64_t free_after_init_bytes = 0;
  std::uint64_t buffers_bytes = 0;  // the largest point's send + receive buffers per rank
  std::uint64_t taken_bytes = 0;    // free memory lost during the sweep
};

struct BenchInterruption {
  const SweepSummary& summary;           // interrupted_by: the signal
  std::vector<std::string> saved_files;  // the files that hold every finished point (empty names: not asked for)
};

// "8.00 GiB": the unit of the memory line and of bench's memory check.
[[nodiscard]] std::string format_gib(std::uint64_t bytes);

void print_bench_memory(std::ostream& out, const BenchMemory& m);

void print_bench_interruption(std::ostream& err, const BenchInterruption& i);

}  // namespace pipebench
