// SPDX-License-Identifier: Apache-2.0
// `run`'s summary table, steps and answer.
#include "report/run_summary_printer.h"

#include <algorithm>

#include "core/printf_string.h"
#include "core/units.h"
#include "harness/interrupt.h"
#include "report/console_table.h"
#include "report/replay_table_printer.h"

namespace pipebench {
namespace {

RunOpSummary summarize_op(const std::vector<ResultRecord>& records, const std::string& op) {
  RunOpSummary s;
  s.op = op;
  const ResultRecord* smallest = nullptr;
  const ResultRecord* peak = nullptr;
  for (const auto& r : records) {
    if (r.op != op) continue;
    s.nranks = r.nranks;
    if (!r.error.empty()) {
      ++s.failed;
      continue;
    }
    if (r.wrong > 0) s.wrong += static_cast<std::uint64_t>(r.wrong);
    // Latency from out-of-place rows: in place on one rank, NCCL has nothing to do.
    if (!r.in_place && r.size_bytes > 0 &&
        (!smallest || r.size_bytes < smallest->size_bytes ||
         (r.size_bytes == smallest->size_bytes && r.time_us < smallest->time_us))) {
      smallest = &r;
    }
    if (!peak || r.busbw_gbps > peak->busbw_gbps) peak = &r;
  }
  if (smallest) {
    s.latency_us = smallest->time_us;
    s.latency_size_bytes = smallest->size_bytes;
  }
  if (peak) {
    s.peak_busbw_gbps = peak->busbw_gbps;
    s.peak_size_bytes = peak->size_bytes;
  }
  return s;
}

}  // namespace

RunSummary summarize_run(const std::vector<ResultRecord>& records, const std::string& dir) {
  RunSummary s;
  s.dir = dir;
  std::vector<std::string> ops;
  for (const auto& r : records) {
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  for (const auto& op : ops) {
    s.ops.push_back(summarize_op(records, op));
    s.wrong += s.ops.back().wrong;
    s.failed += s.ops.back().failed;
  }
  s.one_rank = !records.empty() && records.front().nranks == 1;
  return s;
}

void print_run_summary(std::ostream& out, const RunSummary& s) {
  out << "#\n# Summary (files in " << s.dir << ")\n"
      << "#  op               ranks   latency (us)   at size   peak busbw (GB/s)   at size   wrong   failed\n";
  for (const auto& o : s.ops) {
    out << printf_string("   %-15s %6d   %12s   %7s   %17s   %7s   %5llu   %6d\n", o.op.c_str(), o.nranks,
                         o.latency_us ? format_fixed_width(*o.latency_us, 7).c_str() : "-",
                         o.latency_us ? format_size(o.latency_size_bytes).c_str() : "-",
                         o.peak_busbw_gbps ? format_fixed_width(*o.peak_busbw_gbps, 7).c_str() : "-",
                         o.peak_busbw_gbps ? format_size(o.peak_size_bytes).c_str() : "-",
                         static_cast<unsigned long long>(o.wrong), o.failed);
  }
  if (s.one_rank) {
    out << "# 1 rank: nothing crosses a link; busbw is 0 by definition (factor (n-1)/n), times are local copies\n";
  }
  if (s.wrong == 0 && s.failed == 0) {
    out << "# Verdict: every value checked correct, no point failed\n";
  } else {
    out << "# Verdict: FAILED: " << s.wrong << " wrong values, " << s.failed << " failed points\n";
  }
  out.flush();
}

void print_run_replay(std::ostream& out, const RunReplay& r) {
  if (!r.result) {
    out << "# Replay: skipped: it needs one process with one device per plan rank (" << r.plan_world
        << "), this run has " << r.processes << " process" << (r.processes == 1 ? "" : "es") << " with "
        << r.devices_per_process << " device" << (r.devices_per_process == 1 ? "" : "s") << " each\n";
    return;
  }
  out << printf_string(
      "#\n# Replay: the plan's schedules on these %d %s ranks (compute %s: the prediction's durations), %d iterations "
      "after one warm-up; file replay.json\n",
      r.result->world, r.result->backend.c_str(), r.result->compute.c_str(), r.result->iterations);
  print_replay_table(out, *r.result, r.band, r.band_source);
}

void print_run_report(std::ostream& out, const ReportFiles& files, int status) {
  out << "#\n# Report: " << files.verdict_line << " (exit " << status << "): " << files.html << " " << files.markdown
      << " " << files.json << "\n";
}

void print_run_interrupted(std::ostream& out, int status) {
  out << "#\n# Interrupted by " << signal_name(status - 128)
      << ": the steps after it (plan, prediction, replay, report) were not run\n# Exit status " << status << "\n";
}

void print_run_answer(std::ostream& out, const RunOutcome& o) {
  if (!o.prediction_verdict) return;
  const Agreement* a = o.replay && o.replay->result && o.replay->agreement.compared ? &o.replay->agreement : nullptr;
  const bool contradicted = a && !a->agree && !a->inconclusive;
  if (contradicted) out << "# WARN: " << a->text << "\n";
  out << "# Verdict: " << *o.prediction_verdict << "\n";
  if (a && !contradicted) out << "# Replay: " << a->text << "\n";
}

void print_run_file(std::ostream& out, const RunOutcome& o) {
  print_run_answer(out, o);
  print_run_summary(out, o.sweep);
  if (o.prediction_verdict) out << "# Prediction verdict: " << *o.prediction_verdict << "\n";
  if (o.replay) print_run_replay(out, *o.replay);
  if (o.interrupted != 0) return print_run_interrupted(out, o.interrupted);
  if (o.report) print_run_report(out, *o.report, o.report_status);
  out << "# Exit status " << o.exit_status << "\n";
}

}  // namespace pipebench
