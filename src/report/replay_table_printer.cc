// SPDX-License-Identifier: Apache-2.0
// The replay's console text.
#include "report/replay_table_printer.h"

#include <algorithm>
#include <string>

#include "core/printf_string.h"
#include "replay/task_drift.h"

namespace pipebench {
namespace {

// The width of the schedule-name column: 18, or the longest name ("interleaved-zb:v2 (ref)").
int name_width(const ReplayResult& r) {
  int width = 18;
  for (const auto& s : r.schedules)
    width = std::max(width, static_cast<int>(s.id.key().size() + (s.reference ? 6 : 0)));
  return width;
}

// "%+.2f" of a number, as printf writes it.
std::string signed_ms(double ms) { return printf_string("%+.2f", ms); }

void print_drift(std::ostream& out, const ScheduleReplay& s) {
  const RankDrift* d = most_drifted(s.drift);
  if (!d) return;
  out << "# drift " << printf_string("%-19s", s.id.key().c_str()) << " r" << d->rank << " "
      << signed_ms(d->end_drift_ms) << " ms vs model:";
  const char* sep = " ";
  for (const auto& [kind, ms] : d->by_kind_ms) {
    out << sep << kind << " " << signed_ms(ms);
    sep = ", ";
  }
  out << "; most:";
  sep = " ";
  for (const auto& t : d->largest) {
    out << sep << t.task << " " << signed_ms(t.added_ms);
    sep = ", ";
  }
  out << "\n";
}

// Per schedule: each rank's communication share (beside the predicted one), then the rank that ended
// latest against the model, with what each kind of task added and the tasks that added most
// (replay/task_drift.h; every rank is in the JSON).
void print_replay_shares_and_drift(std::ostream& out, const ReplayResult& r) {
  const int width = name_width(r);
  for (const auto& s : r.schedules) {
    out << "# comm share " << printf_string("%-*s", width - 2, s.id.key().c_str());
    for (const auto& p : s.per_rank) {
      out << printf_string("  r%d %.2f", p.rank, p.comm_share);
      if (p.predicted_comm_share) out << printf_string(" (pred %.2f)", *p.predicted_comm_share);
    }
    out << "\n";
  }
  for (const auto& s : r.schedules) print_drift(out, s);
}

}  // namespace

void print_replay_table(std::ostream& out, const ReplayResult& r, double band, const std::string& band_source) {
  const int width = name_width(r);
  out << printf_string("#  %-*s %12s %28s %8s %10s %10s\n", width, "schedule", "predicted ms",
                       "replayed ms (median, min-max)", "error %", "speed-up p", "speed-up r");
  const ScheduleReplay* base = nullptr;
  for (const auto& s : r.schedules) {
    if (s.id.is_baseline()) base = &s;
  }
  for (const auto& s : r.schedules) {
    std::string pred = "-", err = "-", sp = "-", sr = "-";
    if (s.predicted_ms) {
      pred = printf_string("%.3f", *s.predicted_ms);
      if (s.median_ms > 0) err = printf_string("%+.1f", 100 * (*s.predicted_ms - s.median_ms) / s.median_ms);
      if (base && base->predicted_ms) sp = printf_string("%.3f", *base->predicted_ms / *s.predicted_ms);
    }
    if (base && s.median_ms > 0) sr = printf_string("%.3f", base->median_ms / s.median_ms);
    const std::string measured = printf_string("%.3f (%.3f-%.3f)", s.median_ms, s.min_ms, s.max_ms);
    const std::string name = s.id.key() + (s.reference ? " (ref)" : "");
    out << printf_string("   %-*s %12s %28s %8s %10s %10s\n", width, name.c_str(), pred.c_str(), measured.c_str(),
                         err.c_str(), sp.c_str(), sr.c_str());
  }
  std::string back_to_back;
  for (const auto& s : r.schedules) {
    if (s.step_rule == StepRule::kPostValidation) back_to_back += (back_to_back.empty() ? "" : ", ") + s.id.key();
  }
  if (!back_to_back.empty()) {  // named where any runs so (the others keep the barrier they always had)
    out << "# " << step_rule_name(StepRule::kPostValidation) << ": " << back_to_back
        << " ran back to back (no barrier), each iteration timed from the end of the one before on the rank that ends "
           "it last (predicted: the steady state); the others: "
        << step_rule_name(StepRule::kSynchronous) << ", a barrier before each iteration\n";
  }
  if (r.predicted_fastest.empty()) {
    out << "# Replay verdict: " << r.measured_fastest << " is fastest measured (no prediction)\n";
  } else {
    out << "# Replay verdict: " << replay_agreement(r, band, band_source).text << "\n";
  }
}

void print_replay_report(std::ostream& out, const ReplayResult& r, const std::string& plan_path, double band,
                         const std::string& band_source) {
  out << "# replay of " << plan_path << " on " << r.world << " ranks (" << r.backend << " backend, compute "
      << r.compute << "), " << r.iterations << " iterations after one warm-up\n";
  print_replay_table(out, r, band, band_source);
  print_replay_shares_and_drift(out, r);
  out.flush();
}

}  // namespace pipebench
