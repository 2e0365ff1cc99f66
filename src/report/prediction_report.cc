// SPDX-License-Identifier: Apache-2.0
// Prediction text.
#include "report/prediction_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/printf_string.h"

namespace pipebench {
namespace {

void print_preamble(std::ostream& out, const std::string& plan_path, const std::string& costs, bool shared_path,
                    std::optional<std::size_t> topology_links, double comm_sm_slowdown, const Prediction& p) {
  out << "# prediction for " << plan_path << "\n# communication: " << costs
      << (shared_path       ? "; every pipeline pair shares one path"
          : !topology_links ? "; one link per directed pair"
                            : "; transfers share the PCIe/NVLink links of their topology paths (" +
                                  std::to_string(*topology_links) + " links)")
      << "\n";
  out << printf_string("# compute: forward %.4f ms, backward %.4f ms per layer and microbatch (%s)\n",
                       p.fwd_ms_per_layer, p.bwd_ms_per_layer, p.compute_source.c_str());
  out << printf_string("# NCCL kernels slow overlapped compute by a factor %.2f (--comm-sm-slowdown)\n",
                       1 + comm_sm_slowdown)
      << "#\n";
}

// The memory note of each schedule that splits B and W: activations held per rank at the peak, beside
// 1F1B's on the same pipeline (schedule/activation_memory.h).
void print_memory_notes(std::ostream& out, const Prediction& p, const std::vector<double>& base_held) {
  const auto list = [](const std::vector<double>& held) {
    std::string text;
    for (const double mb : held) {
      text += printf_string("%s%g", text.empty() ? "" : " ", mb);
    }
    return text;
  };
  bool first = true;
  for (const auto& s : p.schedules) {
    if (s.activations_held.empty()) continue;
    if (first) {
      out << printf_string("# B/W split: W is %.2f of the backward (--w-share)\n", p.w_share)
          << "# activations held at the peak, microbatches per pipeline rank: 1f1b " << list(base_held) << "\n";
      first = false;
    }
    out << "#   " << s.id.label() << " " << list(s.activations_held) << "\n";
  }
}

// Per schedule and rank: compute, exposed communication, idle, NCCL share, P2P bytes out.
void print_rank_breakdown(std::ostream& out, const Prediction& p) {
  for (const auto& s : p.schedules) {
    out << "#\n# " << s.id.label()
        << " per rank: compute, exposed communication, idle (ms); share of time NCCL is busy; P2P bytes out\n";
    for (const PredictedRank& r : s.ranks) {
      out << printf_string("   rank %-5d %10.3f %10.3f %10.3f   nccl %5.2f   %12lld\n", r.rank, r.compute_ms,
                           r.exposed_comm_ms, r.idle_ms, r.nccl_share, static_cast<long long>(r.p2p_bytes));
    }
  }
}

// Break-even bandwidths (when any), cost sources and the verdict.
void print_break_even_and_verdict(std::ostream& out, const Prediction& p) {
  if (!p.break_even_gbps.empty()) {
    out << "#\n# break-even P2P bandwidth (an assumed link without latency; above it the schedule beats 1F1B):";
    for (const auto& [v, g] : p.break_even_gbps) {
      if (g) {
        out << printf_string(" v=%d %.3g GB/s;", v, *g);
      } else {
        out << " v=" << v << " never (up to 1e5 GB/s);";
      }
    }
    out << "\n";
  }
  for (const auto& t : p.sharing) {
    if (crosses_link(t)) out << "# measured term: " << describe_sharing(t) << "\n";
  }
  for (const auto& n : p.notes) out << "# note: " << n << "\n";
  out << "# cost sources:";
  for (const auto& s : p.cost_sources) out << " " << s;
  out << "\n# verdict: " << p.verdict << "\n";
}

}  // namespace

void print_profile_calibration(std::ostream& out, const Prediction& p) {
  if (!p.profile_check) return;
  const ProfileCheck& c = *p.profile_check;
  std::vector<std::string> columns;
  std::map<int, std::map<std::string, double>> by_rank;
  std::map<int, std::string> source_of;
  for (const MeasuredTerm& t : p.measured_terms) {
    if (t.rank < 0) continue;
    if (std::find(columns.begin(), columns.end(), t.term) == columns.end()) columns.push_back(t.term);
    by_rank[t.rank][t.term] = t.ms;
    if (!source_of.count(t.rank)) source_of[t.rank] = t.source;
  }
  out << printf_string(
      "# from the profile: %s ran, %lld iteration%s profiled; measured per rank (ms; shares as such):\n",
      c.schedule.label().c_str(), static_cast<long long>(c.iterations), c.iterations == 1 ? "" : "s");
  out << "#   rank";
  for (const auto& col : columns)
    out << printf_string("  %*s", static_cast<int>(std::max<std::size_t>(col.size(), 9)), col.c_str());
  out << "  source\n";
  for (const auto& [rank, terms] : by_rank) {
    out << printf_string("#   %-4d", rank);
    for (const auto& col : columns) {
      const auto it = terms.find(col);
      const int width = static_cast<int>(std::max<std::size_t>(col.size(), 9));
      out << (it == terms.end() ? printf_string("  %*s", width, "-") : printf_string("  %*.4f", width, it->second));
    }
    out << "  " << source_of[rank] << "\n";
  }
  for (const MeasuredTerm& t : p.measured_terms) {
    if (t.rank < 0) out << printf_string("#   %s: %.4f ms (%s)\n", t.term.c_str(), t.ms, t.source.c_str());
  }
  out << printf_string("# %s re-simulated from these terms: iteration %.3f ms, measured %.3f ms (%+.1f %%)\n",
                       c.schedule.label().c_str(), c.simulated_ms, c.measured_ms, 100 * c.error());
  out << "#   rank    ends at (ms): measured  simulated    compute (ms): measured  simulated\n";
  for (const auto& r : c.ranks) {
    out << printf_string("#   %-5d %24.3f %10.3f %24.3f %10.3f\n", r.rank, r.measured_end_ms, r.simulated_end_ms,
                         r.measured_compute_ms, r.simulated_compute_ms);
  }
  for (const auto& t : c.largest) {
    out << printf_string("#   pass %-12s of rank %-4d starts at %.3f ms, simulated %.3f (%+.3f)\n", t.task.c_str(),
                         t.rank, t.measured_start_ms, t.simulated_start_ms, t.simulated_start_ms - t.measured_start_ms);
  }
  out << "#\n";
}

namespace {

// Whether a schedule's steady state is shown beside its cold iteration: where they differ by more than this
// (relative), so that a table where nothing overlaps is the one-column table it always was.
constexpr double kSteadyShownAbove = 5e-4;

bool steady_differs(const SchedulePrediction& s) {
  return s.steady_ms > 0 && s.iteration_ms > 0 && std::fabs(s.steady_ms / s.iteration_ms - 1) > kSteadyShownAbove;
}

// The schedules of each step rule, by label: "synchronous step: 1f1b, gpipe; post-validation: zb-h1".
std::string rules_text(const Prediction& p) {
  std::string text;
  for (const StepRule rule : {StepRule::kSynchronous, StepRule::kPostValidation}) {
    std::string names;
    for (const auto& s : p.schedules) {
      if (s.step_rule == rule) names += (names.empty() ? "" : ", ") + s.id.label();
    }
    if (!names.empty()) text += (text.empty() ? "" : "; ") + std::string(step_rule_name(rule)) + ": " + names;
  }
  return text;
}

}  // namespace

void print_schedule_table(std::ostream& out, const Prediction& p, bool mark_no_overlap) {
  std::vector<std::string> names;
  int width = 22;  // the column grows to the longest name ("interleaved-zb v=4 (reference)")
  bool steady_column = false;
  for (const auto& s : p.schedules) {
    names.push_back(s.id.label() + (mark_no_overlap && s.id.v > 1 && !s.overlap_p2p ? " (no overlap)" : "") +
                    (s.reference ? " (reference)" : ""));
    width = std::max(width, static_cast<int>(names.back().size()));
    steady_column = steady_column || steady_differs(s);
  }
  out << printf_string("#  %-*siteration (ms)%s   speed-up   bubble ideal   bubble sim\n", width, "schedule",
                       steady_column ? "    steady (ms)" : "");
  for (std::size_t i = 0; i < p.schedules.size(); ++i) {
    const auto& s = p.schedules[i];
    // Speed-up 0: no 1F1B to hold it against.
    const std::string speedup = s.speedup > 0 ? printf_string("%8.3f", s.speedup) : "       -";
    const std::string steady = !steady_column      ? ""
                               : steady_differs(s) ? printf_string(" %14.3f", s.steady_ms)
                                                   : std::string(15, ' ');
    out << printf_string("   %-*s %14.3f%s   %s   %12.4f   %10.4f\n", width, names[i].c_str(), s.iteration_ms,
                         steady.c_str(), speedup.c_str(), s.bubble_ideal, s.bubble_sim);
  }
  const bool recorded =
      std::any_of(p.schedules.begin(), p.schedules.end(), [](const auto& s) { return s.steady_ms > 0; });
  if (!recorded) return;  // a prediction read from a file written before the steady state was recorded
  out << printf_string(
      "# iterations: %d back to back with the optimizer step between them; iteration: the first, from a cold start; "
      "steady state: the last, from the end of the one before on the rank that ends it last%s; speed-ups of the %s "
      "iteration; %s\n",
      kSteadyIterations, steady_column ? "" : " (here the same as the cold one for every schedule)", p.compared_name(),
      rules_text(p).c_str());
}

void print_prediction(std::ostream& out, const std::string& plan_path, const std::string& costs, bool shared_path,
                      std::optional<std::size_t> topology_links, double comm_sm_slowdown, const Prediction& p,
                      const std::vector<double>& base_held) {
  print_preamble(out, plan_path, costs, shared_path, topology_links, comm_sm_slowdown, p);
  print_profile_calibration(out, p);
  print_schedule_table(out, p, true);
  print_memory_notes(out, p, base_held);
  print_rank_breakdown(out, p);
  print_break_even_and_verdict(out, p);
}

}  // namespace pipebench
