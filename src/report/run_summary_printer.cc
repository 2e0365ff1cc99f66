// SPDX-License-Identifier: Apache-2.0
// `run`'s summary table.
#include "report/run_summary_printer.h"

#include <algorithm>
#include <cstdio>

#include "core/units.h"
#include "report/console_table.h"

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
    char buf[256];
    std::snprintf(buf, sizeof buf, "   %-15s %6d   %12s   %7s   %17s   %7s   %5llu   %6d\n", o.op.c_str(), o.nranks,
                  o.latency_us ? format_fixed_width(*o.latency_us, 7).c_str() : "-",
                  o.latency_us ? format_size(o.latency_size_bytes).c_str() : "-",
                  o.peak_busbw_gbps ? format_fixed_width(*o.peak_busbw_gbps, 7).c_str() : "-",
                  o.peak_busbw_gbps ? format_size(o.peak_size_bytes).c_str() : "-",
                  static_cast<unsigned long long>(o.wrong), o.failed);
    out << buf;
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

}  // namespace pipebench
