// SPDX-License-Identifier: Apache-2.0
// The job view of a "pipebench.trace/1" file (`trace DIR|FILE...`, written by trace/job_json.cc; fields
// in results/README.md) read back typed: per rank the temporal breakdown, the clock alignment, the
// comparison with another run (--compare) and the check against the model (--prediction, --replay).
// `report` shows them. Shares are fractions of the rank's span, times in us (ms where named).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trace/job_check.h"

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

struct TraceJobView {
  std::vector<TraceJobRank> ranks;  // empty for a one-profile file
  std::optional<TraceJobAlignment> alignment;
  std::optional<JobComparison> compare;  // as trace/job_check.h made it
  std::optional<ModelCheck> model_check;
};

// The job parts of a pipebench.trace/1 document; none for a one-profile file. Throws UsageError naming
// `where` and the field for a missing or mistyped field, a share outside [0, 1] or a negative time.
[[nodiscard]] TraceJobView trace_job_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace pipebench
