// SPDX-License-Identifier: Apache-2.0
// The job view of a "pipebench.trace/1" file (`trace DIR|FILE...`, written by trace/job_json.cc; fields
// in results/README.md) read back typed: per rank the temporal breakdown, the clock alignment, the
// comparison with another run (--compare) and the check against the model (--prediction, --replay).
// `report` shows them. Shares are fractions of the rank's span, times in us (ms where named).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/trace_io.h"

namespace pipebench {

struct TraceJobRank {
  int rank = 0;
  std::string rank_source, file, source, iterations_source;
  int device = -1;
  double start_us = 0, span_us = 0, iteration_ms = 0;
  double compute_share = 0, comm_share = 0, overlap_share = 0, idle_share = 0;
  std::optional<double> comm_overlap_ratio;  // overlapped / communication; none without communication
  std::int64_t iterations = 1, memcpy_count = 0, memset_count = 0;
  bool slowest = false, waits_most = false;
  std::string damage;  // empty: the profile was read to its end
};

struct TraceJobAlignment {
  std::string method, anchor, note;  // anchor, note: empty when null
  std::optional<double> uncertainty_us;
  int checked_runs = 0;
  double job_span_us = 0;
  std::vector<int> missing_ranks;
  int slowest_rank = -1, most_waiting_rank = -1;
};

struct TraceJobShares {
  double compute_share = 0, comm_share = 0, overlap_share = 0, idle_share = 0, iteration_ms = 0;
};

struct TraceJobCompare {
  struct Rank {
    int rank = 0;
    TraceJobShares here, other;
  };
  std::vector<std::string> other;  // the --compare inputs
  std::vector<Rank> ranks;
  std::vector<int> only_this, only_other;
};

struct TraceModelCheck {
  struct Rank {
    int rank = 0;
    double measured_comm_share = 0, measured_iteration_ms = 0;
    std::optional<double> predicted_comm_share, replayed_comm_share, predicted_iteration_ms, replayed_iteration_ms;
    std::vector<std::string> mismatches;
  };
  std::string schedule, prediction, replay;  // prediction, replay: empty when null
  double tolerance = 0;
  int mismatches = 0;
  std::vector<Rank> ranks;
  std::vector<std::string> notes;
};

struct TraceJobView {
  std::vector<TraceJobRank> ranks;  // empty for a one-profile file
  std::optional<TraceJobAlignment> alignment;
  std::optional<TraceJobCompare> compare;
  std::optional<TraceModelCheck> model_check;
};

// Throws UsageError naming `where` and the field for a missing or mistyped field, a share outside
// [0, 1] or a negative time.
[[nodiscard]] TraceJobView trace_job_view(const TraceFile& t, const std::string& where);

}  // namespace pipebench
