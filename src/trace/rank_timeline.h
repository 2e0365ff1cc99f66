// SPDX-License-Identifier: Apache-2.0
// One rank's profile as a timeline, for calibrating the model from the job itself (profile_calibration.h):
// what the rank computed and when, where it communicated, and the ranges that name its passes, iterations
// and optimizer step. Read from a PyTorch profiler (Kineto) trace (trace-formats.md C2):
// - a GPU rank (the trace has kernels): compute is the non-NCCL kernels of the device with the most kernels;
//   communication its NCCL kernels (SendRecv: P2P; the others collectives, by the kernel's collective name);
// - a CPU rank (no kernels: gloo, or a CPU-only job): compute is the outermost `cpu_op` events of the thread
//   that runs the iteration (the one with the ProfilerStep ranges, else the one with the most operators);
//   communication the c10d operators that post calls on that thread (`record_param_comms`, `c10d::*`), P2P
//   where they send or receive (a rank waiting for a receive shows as a gap: gloo's `gloo:recv` ranges are
//   asynchronous, they close when the work is waited for, and are not taken as the call).
// Ranges: `ProfilerStep#N` (iterations), PyTorch pipelining's actions `PP:<stage><F|I|B|W><microbatch>`
// (schedules.py _get_profiler_function_name), `Optimizer.*` (torch.optim's step and zero_grad).
// Times are nanoseconds on the job clock: the trace's baseTimeNanoseconds plus its ts, so that the ranks of one
// host share a clock; without baseTimeNanoseconds the trace's own clock (aligned = false).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipebench {

struct TimeSpan {
  std::int64_t start_ns = 0, end_ns = 0;
  [[nodiscard]] std::int64_t ns() const { return end_ns - start_ns; }
};

struct TimelineComm {
  TimeSpan at;
  bool p2p = false;
  std::string op;  // all_reduce, send, recv, ... (trace/collective_text.h normalize_collective); "" unknown
};

// A PyTorch pipelining action range: stage index, pass (F forward, B full backward, I input gradient, W
// weight gradient) and microbatch.
struct PassMarker {
  TimeSpan at;
  int stage = 0;
  char pass = 'F';
  std::int64_t microbatch = 0;
};

struct RankTimeline {
  std::string path;
  std::string what;  // "CPU operators of thread 123" or "kernels of GPU 0"
  bool gpu = false;
  bool aligned = false;                 // times are on the wall clock (baseTimeNanoseconds)
  std::optional<int> rank, world_size;  // Kineto distributedInfo
  std::vector<TimeSpan> steps;          // ProfilerStep ranges, in order
  std::vector<TimeSpan> compute;        // outermost compute operators or kernels, by start
  std::vector<TimelineComm> comms;      // by start
  std::vector<PassMarker> markers;      // by start
  std::vector<TimeSpan> optimizer;      // Optimizer.* ranges, by start
};

// Throws UsageError naming the file for one that is not a Kineto trace, or that holds neither kernels nor CPU
// operators. A trace cut off part-way is refused too: a calibration needs whole iterations.
[[nodiscard]] RankTimeline read_rank_timeline(const std::string& path);

// The same from an Nsight Systems SQLite export (a GPU rank: its kernels, ProfilerStep NVTX ranges, the session's
// wall clock); read_rank_timeline calls it for an SQLite file. Built only with SQLite (PB_HAVE_SQLITE).
[[nodiscard]] RankTimeline read_rank_timeline_nsys(const std::string& path);

// Every file's timeline, in the order given, read a few at a time (trace/each_file.h). The first error (in the
// order given) is thrown.
[[nodiscard]] std::vector<RankTimeline> read_rank_timelines(const std::vector<std::string>& paths);

// "PP:1F3" -> stage 1, F, microbatch 3; nullopt for any other name.
[[nodiscard]] std::optional<PassMarker> parse_pass_marker(const std::string& name);

}  // namespace pipebench
