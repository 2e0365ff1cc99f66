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

// One "pipebench: note: ..." line per such flag; nothing when there is none. gpu_ranks: the nccl backend
// (false: mpi); threads: -t; gpus_per_process: -g; parallel_init: -p.
void print_bench_notes(std::ostream& err, const MeasureSettings& measure, bool gpu_ranks, int threads,
                       int gpus_per_process, bool parallel_init);

// The mpi backend in one process (bench started without mpirun): one host rank, so no link is crossed and
// every busbw is 0 ((n-1)/n, nccl-tests' PERFORMANCE.md). bench prints this line before anything else, with
// what to run instead: the same command under `mpirun -np 2`. command_line: the words as typed, program first
// (redacted as in the output files, core/command_line.h).
void print_single_rank_note(std::ostream& out, const std::vector<std::string>& command_line);

// "8.00 GiB": the unit of the memory line and of bench's memory check.
[[nodiscard]] std::string format_gib(std::uint64_t bytes);

// -M: nccl-tests prints initialisation, user-allocated and collective memory; this is what can be seen
// from outside NCCL, on the fullest rank. gpu_ranks false: host memory (the MPI backend); buffers: the
// largest point's send + receive buffers per rank; taken: free memory lost during the sweep.
void print_bench_memory(std::ostream& out, bool gpu_ranks, std::uint64_t free_after_init_bytes,
                        std::uint64_t buffers_bytes, std::uint64_t taken_bytes);

// summary.interrupted_by: the signal; saved_files: the files that hold every finished point (empty names:
// not asked for).
void print_bench_interruption(std::ostream& err, const SweepSummary& summary,
                              const std::vector<std::string>& saved_files);

}  // namespace pipebench
