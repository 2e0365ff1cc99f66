// SPDX-License-Identifier: Apache-2.0
// `run`'s summary table of its sweep: per op the latency of its smallest out-of-place size, its peak bus
// bandwidth, wrong values and failed points, then the sweep's verdict line. The same text goes to the
// console and to summary.txt.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/record.h"

namespace pipebench {

// One op of the sweep. A point is a record of the op at one size (in place or not).
struct RunOpSummary {
  std::string op;
  int nranks = 0;
  std::optional<double> latency_us;  // the smallest out-of-place size's (fastest when repeated)
  std::uint64_t latency_size_bytes = 0;
  std::optional<double> peak_busbw_gbps;
  std::uint64_t peak_size_bytes = 0;
  std::uint64_t wrong = 0;  // wrong values over the op's points
  int failed = 0;           // points that failed
};

struct RunSummary {
  std::string dir;                // the run folder, named in the title
  std::vector<RunOpSummary> ops;  // in the order the sweep ran them
  bool one_rank = false;          // nothing crossed a link
  std::uint64_t wrong = 0;        // over every op
  int failed = 0;
};

// The summary of a sweep's records (the ops in their first record's order).
[[nodiscard]] RunSummary summarize_run(const std::vector<ResultRecord>& records, const std::string& dir);

void print_run_summary(std::ostream& out, const RunSummary& s);

}  // namespace pipebench
