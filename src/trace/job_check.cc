// SPDX-License-Identifier: Apache-2.0
// Job comparison and the model check.
#include "trace/job_check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/error.h"

namespace pipebench {
namespace {

// The schedule the check is about: the one asked for, else the only one the files have.
std::string pick_schedule(const Prediction* prediction, const ReplayResult* replay, const std::string& asked) {
  std::vector<std::string> keys;
  if (prediction != nullptr)
    for (const auto& s : prediction->schedules) keys.push_back(s.id.key());
  if (replay != nullptr)
    for (const auto& s : replay->schedules) keys.push_back(s.id.key());
  std::string all;
  for (const auto& k : keys) all += (all.empty() ? "" : ", ") + k;
  if (!asked.empty()) {
    if (std::find(keys.begin(), keys.end(), asked) != keys.end()) return asked;
    throw UsageError("--schedule " + asked + ": not in the prediction/replay (they have: " + all + ")");
  }
  if (std::adjacent_find(keys.begin(), keys.end(), std::not_equal_to<>()) != keys.end())
    throw UsageError("--schedule: the files hold several schedules (" + all + "); name the one that ran");
  if (keys.empty()) throw UsageError("--prediction/--replay: no schedule in the file");
  return keys[0];
}

void flag_mismatches(ModelRank& m, double tol) {
  auto share = [&](const std::optional<double>& v, const char* what) {
    if (v && std::fabs(m.measured_comm_share - *v) > tol) m.mismatches.emplace_back(what);
  };
  auto time = [&](const std::optional<double>& v, const char* what) {
    if (v && *v > 0 && std::fabs(m.measured_iteration_ms / *v - 1.0) > tol) m.mismatches.emplace_back(what);
  };
  share(m.predicted_comm_share, "communication share vs prediction");
  time(m.predicted_iteration_ms, "iteration time vs prediction");
  share(m.replayed_comm_share, "communication share vs replay");
  time(m.replayed_iteration_ms, "iteration time vs replay");
}

RankShares rank_shares(const RankBreakdown& r) {
  return RankShares{r.share(r.compute_ns), r.share(r.comm_ns), r.share(r.overlap_ns), r.share(r.idle_ns),
                    r.iteration_ms()};
}

}  // namespace

JobComparison compare_jobs(const JobProfile& here, const JobProfile& other) {
  JobComparison c;
  c.other_inputs = other.inputs;
  std::map<int, const RankBreakdown*> theirs;
  for (const auto& r : other.ranks) theirs[r.rank] = &r;
  for (const auto& r : here.ranks) {
    auto it = theirs.find(r.rank);
    if (it == theirs.end()) {
      c.only_here.push_back(r.rank);
      continue;
    }
    c.ranks.push_back(RankDelta{r.rank, rank_shares(r), rank_shares(*it->second)});
    theirs.erase(it);
  }
  for (const auto& [rank, r] : theirs) c.only_other.push_back(rank);
  return c;
}

ModelCheck check_against_model(const JobProfile& job, const Prediction* prediction, const std::string& prediction_path,
                               const ReplayResult* replay, const std::string& replay_path, const std::string& schedule,
                               double tolerance) {
  ModelCheck c;
  c.schedule = pick_schedule(prediction, replay, schedule);
  c.prediction_path = prediction_path;
  c.replay_path = replay_path;
  c.tolerance = tolerance;
  const SchedulePrediction* ps = nullptr;
  const ScheduleReplay* rs = nullptr;
  if (prediction != nullptr)
    for (const auto& s : prediction->schedules)
      if (s.id.key() == c.schedule) ps = &s;
  if (replay != nullptr)
    for (const auto& s : replay->schedules)
      if (s.id.key() == c.schedule) rs = &s;
  if (prediction != nullptr && ps == nullptr) c.notes.push_back("the prediction has no " + c.schedule + " schedule");
  if (replay != nullptr && rs == nullptr) c.notes.push_back("the replay has no " + c.schedule + " schedule");
  for (const auto& r : job.ranks) {
    ModelRank m;
    m.rank = r.rank;
    m.measured_comm_share = r.share(r.comm_ns);
    m.measured_iteration_ms = r.iteration_ms();
    if (ps != nullptr) {
      m.predicted_iteration_ms = ps->steady_or_cold_ms();  // a job measured over its iterations
      for (const auto& pr : ps->ranks)
        if (pr.rank == r.rank) m.predicted_comm_share = pr.nccl_share;
    }
    if (rs != nullptr) {
      m.replayed_iteration_ms = rs->median_ms;
      for (const auto& rr : rs->per_rank)
        if (rr.rank == r.rank) m.replayed_comm_share = rr.comm_share;
    }
    if ((ps != nullptr && !m.predicted_comm_share) || (rs != nullptr && !m.replayed_comm_share)) {
      c.notes.push_back("rank " + std::to_string(r.rank) + ": not in the model's ranks (another pipeline group?)");
    }
    flag_mismatches(m, tolerance);
    if (!m.mismatches.empty()) ++c.mismatches;
    c.ranks.push_back(std::move(m));
  }
  return c;
}

}  // namespace pipebench
