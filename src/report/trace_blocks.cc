// SPDX-License-Identifier: Apache-2.0
// Trace section of the report.
#include "report/trace_blocks.h"

#include <string>
#include <utility>

#include "core/printf_string.h"
#include "core/range_list.h"
#include "report/block_builder.h"

namespace pipebench {
namespace {

std::string pct(double share) { return printf_string("%.2f%%", 100 * share); }
std::string pct(const std::optional<double>& share) { return share ? pct(*share) : "-"; }
std::string ms(double v) { return printf_string("%.3f", v); }
std::string ms(const std::optional<double>& v) { return v ? ms(*v) : "-"; }

std::string alignment_text(const TraceJobView& job) {
  std::string text = std::to_string(job.ranks.size()) + " ranks";
  if (!job.alignment) return text + ".";
  const TraceJobAlignment& a = *job.alignment;
  text += "; clocks aligned by " + a.method;
  if (!a.anchor.empty()) text += " (" + a.anchor + ")";
  text +=
      a.uncertainty_us ? ", uncertainty " + printf_string("%.3f", *a.uncertainty_us) + " us" : ", uncertainty unknown";
  text += "; job span " + ms(a.job_span_us / 1000) + " ms";
  if (a.slowest_rank >= 0) text += "; slowest rank " + std::to_string(a.slowest_rank) + " (the most compute)";
  if (a.most_waiting_rank >= 0) text += "; rank that waits most " + std::to_string(a.most_waiting_rank);
  if (!a.missing_ranks.empty()) {
    text += "; missing ranks " + range_list_text(a.missing_ranks);
  }
  return text + ".";
}

void add_ranks(BlockBuilder& b, const TraceJobView& job) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cls;
  for (const auto& r : job.ranks) {
    std::string role = r.slowest ? "slowest" : "";
    if (r.waits_most) role += std::string(role.empty() ? "" : ", ") + "waits most";
    if (!r.damage.empty()) role += std::string(role.empty() ? "" : ", ") + "damaged: " + r.damage;
    rows.push_back({std::to_string(r.rank), std::to_string(r.device), ms(r.span_us / 1000), ms(r.iteration_ms),
                    std::to_string(r.iterations), pct(r.compute_share), pct(r.comm_share), pct(r.overlap_share),
                    pct(r.idle_share), pct(r.comm_overlap_ratio),
                    std::to_string(r.memcpy_count) + "/" + std::to_string(r.memset_count), role.empty() ? "-" : role});
    cls.push_back(r.damage.empty() ? "" : "fail");
  }
  b.table({"rank", "device", "span (ms)", "iteration (ms)", "iters", "compute", "communication", "overlapped", "idle",
           "overlap %", "memcpy/memset", "role"},
          std::move(rows), std::move(cls));
}

void add_compare(BlockBuilder& b, const JobComparison& c) {
  std::string other;
  for (const auto& o : c.other_inputs) other += (other.empty() ? "" : ", ") + o;
  b.heading("Against the other run (" + other + ")", 4);
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : c.ranks) {
    const double d_ms = r.here.iteration_ms - r.other.iteration_ms;
    rows.push_back({std::to_string(r.rank), pct(r.other.comm), pct(r.here.comm),
                    printf_string("%+.2f", 100 * (r.here.comm - r.other.comm)), ms(r.other.iteration_ms),
                    ms(r.here.iteration_ms),
                    r.other.iteration_ms > 0 ? printf_string("%+.1f%%", 100 * d_ms / r.other.iteration_ms) : "-"});
  }
  b.table({"rank", "comm share (other)", "comm share (this)", "change (points)", "iteration ms (other)",
           "iteration ms (this)", "change"},
          std::move(rows));
  std::string only;
  for (int r : c.only_here) only += " " + std::to_string(r) + " (this run only)";
  for (int r : c.only_other) only += " " + std::to_string(r) + " (other run only)";
  if (!only.empty()) b.para("Ranks in one run only:" + only + ".", "note");
}

void add_model_check(BlockBuilder& b, const ModelCheck& m) {
  std::string against = m.prediction_path.empty() ? "" : "prediction " + m.prediction_path;
  if (!m.replay_path.empty()) against += std::string(against.empty() ? "" : ", ") + "replay " + m.replay_path;
  b.heading("Measured against the model (schedule " + m.schedule + ", " + against + ")", 4);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cls;
  for (const auto& r : m.ranks) {
    std::string what;
    for (const auto& x : r.mismatches) what += (what.empty() ? "" : "; ") + x;
    rows.push_back({std::to_string(r.rank), pct(r.measured_comm_share), pct(r.predicted_comm_share),
                    pct(r.replayed_comm_share), ms(r.measured_iteration_ms), ms(r.predicted_iteration_ms),
                    ms(r.replayed_iteration_ms), what.empty() ? "ok" : what});
    cls.push_back(what.empty() ? "pass" : "warn");
  }
  b.table({"rank", "comm share measured", "predicted", "replayed", "iteration ms measured", "predicted", "replayed",
           "state"},
          std::move(rows), std::move(cls));
  const std::string tol = printf_string("%.3g", m.tolerance);
  b.para(m.mismatches == 0
             ? "Every rank within the tolerance (" + tol + " absolute for shares, " + tol + " x 100 % for times)."
             : std::to_string(m.mismatches) + " rank(s) beyond the tolerance (" + tol + " absolute for shares, " + tol +
                   " x 100 % for times): the model does not describe this run there.",
         m.mismatches == 0 ? "note" : "warn");
  for (const auto& n : m.notes) b.para(n, "note");
}

void add_devices(BlockBuilder& b, const std::vector<TraceDevice>& devices) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : devices) {
    rows.push_back({std::to_string(d.device), d.name.empty() ? "-" : d.name, d.rank ? std::to_string(*d.rank) : "-",
                    ms(d.span_us / 1000), pct(d.busy_share), pct(d.comm_share)});
  }
  b.table({"device", "name", "rank", "span (ms)", "busy", "communication"}, std::move(rows));
}

}  // namespace

void add_trace_blocks(std::vector<Block>& blocks, const InputFile<TraceFile>& t, std::size_t max_rows) {
  const TraceJobView& job = t.doc.job;
  BlockBuilder b(blocks, max_rows, "the trace file has them");
  b.heading("Trace: " + t.path, 3);
  if (job.ranks.empty()) {
    b.para("One profile (" + t.doc.source + ") of " + std::to_string(t.doc.devices.size()) +
           " device(s); shares of each device's profiled span.");
    add_devices(b, t.doc.devices);
  } else {
    b.para(alignment_text(job) +
           " Shares of each rank's span (first to last GPU activity): the temporal breakdown of Holistic Trace "
           "Analysis; overlap % = overlapped / communication.");
    add_ranks(b, job);
    if (job.compare) add_compare(b, *job.compare);
    if (job.model_check) add_model_check(b, *job.model_check);
  }
  if (!t.doc.damage.empty()) b.para("The profile is damaged: " + t.doc.damage, "warn");
}

}  // namespace pipebench
