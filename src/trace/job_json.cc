// SPDX-License-Identifier: Apache-2.0
// Job JSON.
#include "trace/job_json.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json shares_to_json(const RankShares& s) {
  return {{"compute_share", s.compute},
          {"comm_share", s.comm},
          {"overlap_share", s.overlap},
          {"idle_share", s.idle},
          {"iteration_ms", s.iteration_ms}};
}

}  // namespace

json job_ranks_to_json(const JobProfile& job) {
  json out = json::array();
  for (std::size_t i = 0; i < job.ranks.size(); ++i) {
    const RankBreakdown& r = job.ranks[i];
    out.push_back({{"rank", r.rank},
                   {"rank_source", r.rank_source},
                   {"file", r.profile.path},
                   {"source", r.profile.source},
                   {"device", r.device},
                   {"offset_us", ns_to_us(job.alignment.offset_ns[i])},
                   {"start_us", ns_to_us(r.start_ns)},
                   {"span_us", ns_to_us(r.span_ns)},
                   {"active_us", ns_to_us(r.active_ns)},
                   {"compute_us", ns_to_us(r.compute_ns)},
                   {"comm_us", ns_to_us(r.comm_ns)},
                   {"overlap_us", ns_to_us(r.overlap_ns)},
                   {"compute_only_us", ns_to_us(r.compute_only_ns)},
                   {"comm_only_us", ns_to_us(r.comm_only_ns)},
                   {"memory_only_us", ns_to_us(r.memory_only_ns)},
                   {"idle_us", ns_to_us(r.idle_ns)},
                   {"compute_share", r.share(r.compute_ns)},
                   {"comm_share", r.share(r.comm_ns)},
                   {"overlap_share", r.share(r.overlap_ns)},
                   {"idle_share", r.share(r.idle_ns)},
                   {"comm_overlap_ratio", opt(r.overlap_ratio())},
                   {"memcpy_count", r.memcpy_count},
                   {"memset_count", r.memset_count},
                   {"memcpy_bytes", r.memcpy_bytes},
                   {"memset_bytes", r.memset_bytes},
                   {"iterations", r.iterations},
                   {"iterations_source", r.iterations_source},
                   {"iteration_ms", r.iteration_ms()},
                   {"slowest", r.rank == job.slowest_rank},
                   {"waits_most", r.rank == job.most_waiting_rank},
                   {"damage", r.profile.damage.empty() ? json(nullptr) : json(r.profile.damage)}});
  }
  return out;
}

json job_alignment_to_json(const JobProfile& job) {
  const ClockAlignment& a = job.alignment;
  return {{"method", a.method},
          {"anchor", a.anchor.empty() ? json(nullptr) : json(a.anchor)},
          {"uncertainty_us", a.uncertainty_ns ? json(ns_to_us(*a.uncertainty_ns)) : json(nullptr)},
          {"checked_runs", a.checked_runs},
          {"note", a.note.empty() ? json(nullptr) : json(a.note)},
          {"job_span_us", ns_to_us(job.job_span_ns)},
          {"missing_ranks", job.missing_ranks},
          {"slowest_rank", job.slowest_rank},
          {"most_waiting_rank", job.most_waiting_rank}};
}

json job_compare_to_json(const JobComparison& c) {
  json ranks = json::array();
  for (const auto& d : c.ranks) {
    ranks.push_back({{"rank", d.rank},
                     {"this", shares_to_json(d.here)},
                     {"other", shares_to_json(d.other)},
                     {"delta",
                      {{"compute_share", d.here.compute - d.other.compute},
                       {"comm_share", d.here.comm - d.other.comm},
                       {"overlap_share", d.here.overlap - d.other.overlap},
                       {"idle_share", d.here.idle - d.other.idle},
                       {"iteration_ms", d.here.iteration_ms - d.other.iteration_ms}}}});
  }
  return {{"other", c.other_inputs}, {"ranks", ranks}, {"only_this", c.only_here}, {"only_other", c.only_other}};
}

json model_check_to_json(const ModelCheck& m) {
  json ranks = json::array();
  for (const auto& r : m.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"measured_comm_share", r.measured_comm_share},
                     {"predicted_comm_share", opt(r.predicted_comm_share)},
                     {"replayed_comm_share", opt(r.replayed_comm_share)},
                     {"measured_iteration_ms", r.measured_iteration_ms},
                     {"predicted_iteration_ms", opt(r.predicted_iteration_ms)},
                     {"replayed_iteration_ms", opt(r.replayed_iteration_ms)},
                     {"mismatches", r.mismatches}});
  }
  return {{"schedule", m.schedule},
          {"prediction", m.prediction_path.empty() ? json(nullptr) : json(m.prediction_path)},
          {"replay", m.replay_path.empty() ? json(nullptr) : json(m.replay_path)},
          {"tolerance", m.tolerance},
          {"mismatches", m.mismatches},
          {"ranks", ranks},
          {"notes", m.notes}};
}

}  // namespace pipebench
