// SPDX-License-Identifier: Apache-2.0
// Job report text.
#include "trace/job_report.h"

#include <cstdio>
#include <string>

#include "core/printf_string.h"
#include "core/range_list.h"
#include "core/version.h"
#include "trace/trace_report.h"

namespace pipebench {
namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }
std::string pct(double share) { return printf_string("%.2f%%", 100.0 * share); }
std::string signed_pts(double d) { return printf_string("%+.2f", 100.0 * d); }

void print_header(std::ostream& out, const JobProfile& job) {
  out << "# pipebench " << kToolVersion << " trace  " << job.ranks.size() << " rank"
      << (job.ranks.size() == 1 ? "" : "s") << "\n";
  for (const auto& r : job.ranks) {
    out << "# rank " << r.rank << " (" << r.rank_source << "): " << r.profile.path << "  (" << r.profile.source << ", "
        << r.profile.kernel_rows << " kernel rows, " << r.profile.skipped_rows << " skipped"
        << (r.profile.damage.empty() ? "" : "; DAMAGED: " + r.profile.damage) << ")\n";
  }
  if (!job.missing_ranks.empty()) {
    out << "# ranks missing: " << range_list_text(job.missing_ranks)
        << (job.world_size ? " (world size " + std::to_string(*job.world_size) + ")" : std::string()) << "\n";
  }
  const ClockAlignment& a = job.alignment;
  out << "# clocks aligned by "
      << (a.method == "epoch"        ? "the wall clock each profile recorded (baseTimeNanoseconds / utcEpochNs)"
          : a.method == "collective" ? "the end of the first " + a.anchor + " every rank ran"
                                     : std::string("nothing (each rank's own clock)"));
  if (a.uncertainty_ns) {
    out << printf_string("; uncertainty %.3f us (spread of the ends of %d run%s of %s across ranks after alignment)",
                         static_cast<double>(*a.uncertainty_ns) / 1000.0, a.checked_runs,
                         a.checked_runs == 1 ? "" : "s", a.anchor.c_str());
  } else {
    out << "; uncertainty unknown";
  }
  out << "\n";
  if (!a.note.empty()) out << "# clocks: " << a.note << "\n";
  out << "# offsets (us added to each rank's times):";
  for (std::size_t i = 0; i < job.ranks.size(); ++i)
    out << printf_string(" %d:%.3f", job.ranks[i].rank, static_cast<double>(a.offset_ns[i]) / 1000.0);
  out << "\n";
}

void print_breakdown(std::ostream& out, const JobProfile& job) {
  out << "#\n# temporal breakdown (Holistic Trace Analysis): shares of each rank's span, first to last GPU activity\n"
      << "# compute, communication: unions of non-NCCL / NCCL kernels; overlapped: both at once; idle: no kernel "
         "nor memcpy/memset; overlap %: overlapped / communication\n";
  out << "#  rank  device   start_ms    span_ms    iter_ms  iters  compute_only  comm_only  overlapped  memory_only"
         "      idle  comm_share  overlap%   memcpy/memset (MiB)\n";
  for (const auto& r : job.ranks) {
    const auto ov = r.overlap_ratio();
    out << printf_string(
        "   %4d  %6d %10.3f %10.3f %10.3f %6lld %13s %10s %11s %12s %9s %11s %9s   %lld/%lld (%.1f)\n", r.rank,
        r.device, ms(r.start_ns), ms(r.span_ns), r.iteration_ms(), static_cast<long long>(r.iterations),
        pct(r.share(r.compute_only_ns)).c_str(), pct(r.share(r.comm_only_ns)).c_str(),
        pct(r.share(r.overlap_ns)).c_str(), pct(r.share(r.memory_only_ns)).c_str(), pct(r.share(r.idle_ns)).c_str(),
        pct(r.share(r.comm_ns)).c_str(), ov ? pct(*ov).c_str() : "-", static_cast<long long>(r.memcpy_count),
        static_cast<long long>(r.memset_count), static_cast<double>(r.memcpy_bytes + r.memset_bytes) / 1048576.0);
  }
  out << printf_string("# job span %.3f ms (first activity of any rank to the last of any rank, aligned clocks)\n",
                       ms(job.job_span_ns));
  for (const auto& r : job.ranks) {
    if (r.rank == job.slowest_rank) {
      out << printf_string("# slowest rank: %d (the most compute, %.3f ms: the rank the others wait for)\n", r.rank,
                           ms(r.compute_ns));
    }
  }
  for (const auto& r : job.ranks) {
    if (r.rank == job.most_waiting_rank) {
      out << printf_string(
          "# rank that waits most: %d (%.3f ms not computing: idle %.3f ms, NCCL or memory work alone %.3f ms)\n",
          r.rank, ms(r.not_computing_ns()), ms(r.idle_ns), ms(r.comm_only_ns + r.memory_only_ns));
    }
  }
}

void print_rank_details(std::ostream& out, const RankBreakdown& r, int top_rows) {
  for (const auto& d : r.profile.devices) {
    if (d.device != r.device) continue;
    out << "#\n# rank " << r.rank << ": top kernels (share of the span)\n";
    int shown = 0;
    for (const auto& k : d.rows) {
      if (top_rows > 0 && shown++ == top_rows) {
        out << "#   ... " << d.rows.size() - static_cast<std::size_t>(top_rows) << " more (--top 0 shows all)\n";
        break;
      }
      out << printf_string("   %8s %9lld %12.3f us  %s%s\n", pct(r.share(k.total_ns)).c_str(),
                           static_cast<long long>(k.count), static_cast<double>(k.total_ns) / 1000.0,
                           k.comm ? "[comm] " : "", k.name.c_str());
    }
    if (d.collectives.empty()) continue;
    out << "# rank " << r.rank
        << ": collectives        elements           bytes  dtype          count  group  source\n";
    for (const auto& c : d.collectives) print_collective_row(out, c);
  }
  for (const auto& [reason, n] : r.profile.skipped_by_reason)
    out << "# rank " << r.rank << ": skipped " << n << ": " << reason << "\n";
  for (const auto& n : r.profile.notes) out << "# rank " << r.rank << ": note: " << n << "\n";
}

void print_compare(std::ostream& out, const JobComparison& c) {
  std::string other;
  for (const auto& p : c.other_inputs) other += (other.empty() ? "" : " ") + p;
  out << "#\n# compared with " << other << " (other -> this run; shares of the span, change in points)\n";
  out << "#  rank   compute              comm                 overlapped           idle                 iter_ms\n";
  for (const auto& d : c.ranks) {
    auto cell = [](double a, double b) { return printf_string("%.3f->%.3f (%s)", a, b, signed_pts(b - a).c_str()); };
    out << printf_string("   %4d  %-20s %-20s %-20s %-20s %.3f->%.3f (%+.1f%%)\n", d.rank,
                         cell(d.other.compute, d.here.compute).c_str(), cell(d.other.comm, d.here.comm).c_str(),
                         cell(d.other.overlap, d.here.overlap).c_str(), cell(d.other.idle, d.here.idle).c_str(),
                         d.other.iteration_ms, d.here.iteration_ms,
                         d.other.iteration_ms > 0 ? 100.0 * (d.here.iteration_ms / d.other.iteration_ms - 1.0) : 0.0);
  }
  for (int r : c.only_here) out << "# rank " << r << ": only in this run\n";
  for (int r : c.only_other) out << "# rank " << r << ": only in the compared run\n";
}

void print_model(std::ostream& out, const ModelCheck& m) {
  out << "#\n# against the model: schedule " << m.schedule
      << printf_string("; tolerance %.3f (shares absolute, iteration times relative)\n", m.tolerance);
  out << "#  rank  comm_share measured  predicted  replayed   iter_ms measured  predicted   replayed  status\n";
  auto opt = [](const std::optional<double>& v, const char* f) { return v ? printf_string(f, *v) : std::string("-"); };
  for (const auto& r : m.ranks) {
    std::string what;
    for (const auto& s : r.mismatches) what += (what.empty() ? "" : "; ") + s;
    out << printf_string("   %4d  %19.3f %10s %9s %17.3f %10s %10s  %s\n", r.rank, r.measured_comm_share,
                         opt(r.predicted_comm_share, "%.3f").c_str(), opt(r.replayed_comm_share, "%.3f").c_str(),
                         r.measured_iteration_ms, opt(r.predicted_iteration_ms, "%.3f").c_str(),
                         opt(r.replayed_iteration_ms, "%.3f").c_str(),
                         what.empty() ? "ok" : ("MISMATCH: " + what).c_str());
  }
  for (const auto& n : m.notes) out << "# note: " << n << "\n";
}

}  // namespace

void print_job_report(std::ostream& out, const JobProfile& job, const JobComparison* compare, const ModelCheck* model,
                      int top_rows) {
  print_header(out, job);
  print_breakdown(out, job);
  for (const auto& r : job.ranks) print_rank_details(out, r, top_rows);
  if (compare != nullptr) print_compare(out, *compare);
  if (model != nullptr) print_model(out, *model);
}

}  // namespace pipebench
