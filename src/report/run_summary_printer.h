// SPDX-License-Identifier: Apache-2.0
// What `run` did (RunOutcome) and its text: the summary table of its sweep (per op the latency of its
// smallest out-of-place size, its peak bus bandwidth, wrong values and failed points, then the sweep's
// verdict line), each later step's lines, the answer; the console prints each as its step ends, and
// summary.txt all of them.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/record.h"
#include "replay/replay.h"
#include "report/report_writer.h"
#include "sim/verdict.h"

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

// The replay (rank 0) and how it bears out the prediction; skipped, what it needed (one process with one
// device per plan rank) and what the run had.
struct RunReplay {
  std::optional<ReplayResult> result;
  double band = 0;          // the prediction's speed-up band, that of the agreement
  std::string band_source;  // where the band comes from (decide_verdict's band_source)
  Agreement agreement;
  int plan_world = 0, processes = 0, devices_per_process = 0;  // when skipped
};

// What `run` measured, predicted, replayed and reported (rank 0), and its exit status.
struct RunOutcome {
  RunSummary sweep;
  std::optional<std::string> prediction_verdict;
  std::optional<RunReplay> replay;    // when asked for and the plan was made
  std::optional<ReportFiles> report;  // when written
  int report_status = 0;              // the report's own exit status (0 or 3)
  int interrupted = 0;                // 128 + the signal that stopped the sweep or the plan's messages; 0: none
  int exit_status = 0;
};

// The replay's header line and predicted vs replayed table, or why it was skipped.
void print_run_replay(std::ostream& out, const RunReplay& r);
// The report's own verdict line (the console and the report cannot say different things) and files.
void print_run_report(std::ostream& out, const ReportFiles& files, int status);
// The signal that stopped the run (status 128 + it) and the exit status.
void print_run_interrupted(std::ostream& out, int status);
// The answer, first in summary.txt and last on the console: the prediction's verdict and whether the
// replay bears it out (WARN first where it contradicts it); nothing without a prediction.
void print_run_answer(std::ostream& out, const RunOutcome& o);
// summary.txt: the answer, the sweep, the prediction's verdict, the replay, the report's line or the
// interruption, the exit status.
void print_run_file(std::ostream& out, const RunOutcome& o);

}  // namespace pipebench
