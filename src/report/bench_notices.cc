// SPDX-License-Identifier: Apache-2.0
// bench's notes, memory line and interrupted line.
#include "report/bench_notices.h"

#include "core/command_line.h"
#include "core/printf_string.h"
#include "harness/interrupt.h"

namespace pipebench {

void print_bench_notes(std::ostream& err, const MeasureSettings& measure, bool gpu_ranks, int threads,
                       int gpus_per_process, bool parallel_init) {
  const auto note = [&err](const std::string& text) { err << "pipebench: note: " << text << "\n"; };
  if (parallel_init) {
    note(
        "-p 1: a process's communicators are created in one ncclGroupStart/End, which already initialises them in "
        "parallel; -p changes nothing");
  }
  const std::string gpus = std::to_string(threads * gpus_per_process);
  if (gpu_ranks && threads > 1) {
    note("-t " + std::to_string(threads) + ": one thread drives the process's " + gpus +
         " GPUs with grouped calls (as -g " + gpus + ")");
  }
  if (gpu_ranks) return;
  if (threads > 1) note("-t: the mpi backend runs one host rank per process; start more with mpirun -np");
  if (measure.buffers.registration > 0) note("-R: the mpi backend has host buffers; there is nothing to register");
  if (measure.buffers.alloc != BufferAlloc::kDefault) {
    note("--alloc: the mpi backend has host buffers (aligned_alloc); cuda/ncclmem apply to nccl");
  }
  if (measure.cputime) note("-C: on the mpi backend calls complete as they are issued; cputime is the time");
}

void print_single_rank_note(std::ostream& out, const std::vector<std::string>& command_line) {
  const std::string again = command_line.empty() ? "pipebench bench ..." : redacted_command_line(command_line);
  out << "# 1 rank: the mpi backend runs one host rank per process and this is one process (no mpirun), "
         "so no link is crossed and busbw is 0; run `mpirun -np 2 "
      << again << "` instead (or --backend nccl on GPUs)\n";
}

std::string format_gib(std::uint64_t bytes) {
  return printf_string("%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
}

void print_bench_memory(std::ostream& out, bool gpu_ranks, std::uint64_t free_after_init_bytes,
                        std::uint64_t buffers_bytes, std::uint64_t taken_bytes) {
  out << "# " << (gpu_ranks ? "GPU" : "Host") << " memory usage : free after init " << format_gib(free_after_init_bytes)
      << " | buffers " << format_gib(buffers_bytes) << " per rank (send + recv) | taken during the sweep and kept "
      << format_gib(taken_bytes) << "\n";
}

void print_bench_interruption(std::ostream& err, const SweepSummary& summary,
                              const std::vector<std::string>& saved_files) {
  std::string saved;
  for (const std::string& f : saved_files) {
    if (!f.empty()) saved += (saved.empty() ? "" : ", ") + f;
  }
  const int records = summary.records;
  err << "pipebench: interrupted by " << signal_name(summary.interrupted_by) << " after " << records
      << " measured point" << (records == 1 ? "" : "s") << "; "
      << (saved.empty() ? "no file was asked for (--json/--csv keep the records)"
                        : "every finished point is in " + saved)
      << "\n";
}

}  // namespace pipebench
