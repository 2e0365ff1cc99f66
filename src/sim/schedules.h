// SPDX-License-Identifier: Apache-2.0
// Schedule generators: per pipeline rank, the task list of one iteration for GPipe, 1F1B
// (megatron.md §3a) and interleaved 1F1B (§3b, default overlapped P2P or --no-overlap-p2p-communication).
// They know the order of operations and which calls block, not how long anything takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/task.h"

namespace pipebench {

enum class ScheduleKind { kGpipe, kOneFOneB, kInterleaved };

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::kOneFOneB;
  int p = 1;
  int v = 1;
  std::int64_t m = 1;
  bool overlap_p2p = true;                          // interleaved only
  std::vector<std::int64_t> warmup;                 // per rank (1F1B, interleaved)
  std::vector<std::pair<std::int64_t, int>> table;  // forward order (microbatch, chunk), interleaved
  std::int64_t p2p_bytes = 0;                       // one activation (= one activation grad)
  // Compute per microbatch and chunk: fwd[r][c], bwd[r][c] in ns.
  std::vector<std::vector<SimTime>> fwd, bwd;
};

// The program of every pipeline rank. Tags encode (direction, microbatch, receiving virtual stage).
[[nodiscard]] std::vector<Program> generate_schedule(const ScheduleSpec& spec);

}  // namespace pipebench
