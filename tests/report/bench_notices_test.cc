// SPDX-License-Identifier: Apache-2.0
// bench's notices: no note for plain flags, -p and -t on the nccl backend, every host-buffer note on mpi;
// -M's memory line on GPUs and on hosts; the interrupted line with and without files.
#include "report/bench_notices.h"

#include <gtest/gtest.h>

#include <csignal>
#include <sstream>
#include <string>

namespace pipebench {
namespace {

std::string printed(const MeasureSettings& m, bool gpu_ranks, int threads, int gpus_per_process, bool parallel_init) {
  std::ostringstream err;
  print_bench_notes(err, m, gpu_ranks, threads, gpus_per_process, parallel_init);
  return err.str();
}

TEST(BenchNotices, PlainFlagsSayNothing) {
  const MeasureSettings m;
  EXPECT_EQ(printed(m, true, 1, 8, false), "");
  EXPECT_EQ(printed(m, false, 1, 1, false), "");
}

TEST(BenchNotices, ParallelInitAndThreadsOnNccl) {
  MeasureSettings m;
  m.cputime = true;  // no note on nccl
  EXPECT_EQ(printed(m, true, 2, 4, true),
            "pipebench: note: -p 1: a process's communicators are created in one ncclGroupStart/End, which already "
            "initialises them in parallel; -p changes nothing\n"
            "pipebench: note: -t 2: one thread drives the process's 8 GPUs with grouped calls (as -g 8)\n");
}

TEST(BenchNotices, HostBuffersOnMpi) {
  MeasureSettings m;
  m.buffers.registration = 1;
  m.buffers.alloc = BufferAlloc::kCuda;
  m.cputime = true;
  EXPECT_EQ(printed(m, false, 2, 1, false),
            "pipebench: note: -t: the mpi backend runs one host rank per process; start more with mpirun -np\n"
            "pipebench: note: -R: the mpi backend has host buffers; there is nothing to register\n"
            "pipebench: note: --alloc: the mpi backend has host buffers (aligned_alloc); cuda/ncclmem apply to nccl\n"
            "pipebench: note: -C: on the mpi backend calls complete as they are issued; cputime is the time\n");
}

// bench on the mpi backend without mpirun: one rank, busbw 0; the line names the command to run instead,
// redacted like the recorded command line.
TEST(BenchNotices, OneMpiRankSaysWhatToRunInstead) {
  std::ostringstream err;
  print_single_rank_note(err, {"/opt/bin/pipebench", "bench", "--backend", "mpi", "--hf-token", "x", "-b", "1M"});
  EXPECT_EQ(err.str(),
            "# 1 rank: the mpi backend runs one host rank per process and this is one process (no mpirun), "
            "so no link is crossed and busbw is 0; run `mpirun -np 2 pipebench bench --backend mpi --hf-token "
            "<redacted> -b 1M` instead (or --backend nccl on GPUs)\n");
}

TEST(BenchNotices, MemoryLineInGiB) {
  std::ostringstream out;
  print_bench_memory(out, true, 80ull << 30, 3ull << 29, 0);
  print_bench_memory(out, false, 1ull << 30, 0, 1ull << 28);
  EXPECT_EQ(out.str(),
            "# GPU memory usage : free after init 80.00 GiB | buffers 1.50 GiB per rank (send + recv) | taken during "
            "the sweep and kept 0.00 GiB\n"
            "# Host memory usage : free after init 1.00 GiB | buffers 0.00 GiB per rank (send + recv) | taken during "
            "the sweep and kept 0.25 GiB\n");
}

TEST(BenchNotices, InterruptedLineNamesTheFilesAsked) {
  SweepSummary s;
  s.records = 1;
  s.interrupted_by = SIGINT;
  std::ostringstream err;
  print_bench_interruption(err, s, {"r.json", "", "bm.json"});
  s.records = 3;
  s.interrupted_by = SIGTERM;
  print_bench_interruption(err, s, {"", ""});
  EXPECT_EQ(err.str(),
            "pipebench: interrupted by SIGINT after 1 measured point; every finished point is in r.json, bm.json\n"
            "pipebench: interrupted by SIGTERM after 3 measured points; no file was asked for (--json/--csv keep the "
            "records)\n");
}

}  // namespace
}  // namespace pipebench
