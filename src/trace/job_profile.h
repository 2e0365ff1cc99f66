// SPDX-License-Identifier: Apache-2.0
// What `pipebench trace DIR|FILE...` reads out of a whole job: one profile per rank, put on one clock,
// and per rank the temporal breakdown of Holistic Trace Analysis (HTA; hta/analyzers/
// breakdown_analysis.py get_temporal_breakdown, communication_analysis.py get_comm_comp_overlap):
//   compute       = union of the non-NCCL kernels' intervals
//   communication = union of the NCCL kernels' intervals
//   overlapped    = compute ∩ communication = compute + communication - (compute ∪ communication)
//   memory only   = memcpy/memset time under no kernel = active - (compute ∪ communication)
//   idle          = span - active (active = union of kernels and memcpy/memset)
//   overlap %     = overlapped / communication (HTA's comp_comm_overlap_ratio)
// Shares are of the rank's span (first to last GPU activity). HTA's shares are of its "kernel_time",
// the same span; HTA counts memory kernels as non-compute time, so HTA non_compute = communication
// only + memory only here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/job_align.h"
#include "trace/profile.h"

namespace pipebench {

struct RankBreakdown {
  int rank = 0;
  std::string rank_source;                // "distributedInfo", "file name", "--first-rank", "order"
  TraceProfile profile;                   // the rank's profile (bounded: rows by distinct name; comm_marks dropped)
  int device = -1;                        // the profile's device this rank ran on (the one with the most kernels)
  std::int64_t start_ns = 0, end_ns = 0;  // first and last GPU activity, on the job clock
  std::int64_t span_ns = 0, active_ns = 0, compute_ns = 0, comm_ns = 0, overlap_ns = 0;
  std::int64_t compute_only_ns = 0, comm_only_ns = 0, memory_only_ns = 0, idle_ns = 0;
  std::int64_t memcpy_count = 0, memset_count = 0, memcpy_bytes = 0, memset_bytes = 0;
  std::int64_t iterations = 1;
  std::string iterations_source;  // "--iterations", "ProfilerStep", "whole profile"
  [[nodiscard]] double share(std::int64_t ns) const {
    return span_ns > 0 ? static_cast<double>(ns) / static_cast<double>(span_ns) : 0.0;
  }
  // HTA's comp_comm_overlap_ratio; nullopt without communication.
  [[nodiscard]] std::optional<double> overlap_ratio() const {
    if (comm_ns <= 0) return std::nullopt;
    return static_cast<double>(overlap_ns) / static_cast<double>(comm_ns);
  }
  [[nodiscard]] double iteration_ms() const {
    return static_cast<double>(span_ns) / 1e6 / static_cast<double>(iterations > 0 ? iterations : 1);
  }
  // Time not computing: idle, or in NCCL and memory work alone (an NCCL kernel spins while it waits
  // for its peers, so a rank that waits shows it here).
  [[nodiscard]] std::int64_t not_computing_ns() const { return span_ns - compute_ns; }
};

struct JobProfile {
  std::vector<std::string> inputs;   // as given
  std::vector<RankBreakdown> ranks;  // by rank
  ClockAlignment alignment;          // offsets by rank (same order as ranks)
  std::vector<int> missing_ranks;    // gaps in 0..max rank (or world size)
  std::optional<int> world_size;     // from distributedInfo
  std::int64_t job_span_ns = 0;      // first activity of any rank to the last of any rank
  int slowest_rank = -1;             // the most compute time: the rank the others wait for
  int most_waiting_rank = -1;        // the most time not computing (idle or in NCCL/memory work alone)
  [[nodiscard]] bool damaged() const {
    for (const auto& r : ranks)
      if (!r.profile.damage.empty()) return true;
    return false;
  }
};

}  // namespace pipebench
