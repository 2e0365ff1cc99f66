// SPDX-License-Identifier: Apache-2.0
// replay_plan: warm-up + timed iterations per schedule; per-iteration reduction to rank 0.
#include "replay/replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/stats.h"
#include "replay/plan_jobs.h"
#include "replay/progress_watchdog.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// Rank 0's prediction of each job's schedule, shared with every rank: its iteration time and each pipeline
// rank's NCCL share (the rest stays on rank 0); none where the prediction does not have the schedule.
std::vector<std::optional<SchedulePrediction>> share_prediction(const World& world, const std::vector<RankJob>& jobs,
                                                                const Prediction* p) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& job : world.rank() == 0 ? jobs : std::vector<RankJob>{}) {
    nlohmann::json one;
    for (const auto& s : p ? p->schedules : std::vector<SchedulePrediction>{}) {
      if (s.id != job.id) continue;
      // The steady state: what the replay's iterations, one after another, measure.
      one = {{"ms", s.steady_or_cold_ms()}, {"ranks", nlohmann::json::array()}};
      for (const auto& r : s.ranks) one["ranks"].push_back({r.rank, r.nccl_share});
    }
    all.push_back(one);
  }
  all = nlohmann::json::parse(world.broadcast(all.dump(), 0));
  std::vector<std::optional<SchedulePrediction>> out;
  for (const auto& one : all) {
    out.emplace_back();
    if (one.is_null()) continue;
    out.back().emplace().iteration_ms = one["ms"].get<double>();
    for (const auto& r : one["ranks"]) out.back()->ranks.push_back({r[0].get<int>(), 0, 0, 0, r[1].get<double>(), 0});
  }
  return out;
}

// The planned compute of a rank's iteration (the timeout's yardstick without a prediction).
double compute_ms(const Program& prog) {
  double ns = 0;
  for (const auto& t : prog.tasks) {
    if (t.kind == Task::Kind::kCompute) ns += static_cast<double>(t.duration);
  }
  return ns / 1e6;
}

struct RankSamples {
  std::vector<std::vector<double>> compute, busy, idle, share;  // [rank][iteration]
};

// An iteration run right after `before`, without a barrier between them (post-validation): on the rank that ends
// it last, the time from its end of `before` to its end of this one, as predict's steady state is measured. The
// ends are each rank's since the barrier that began the first (its own clock; the ranks left that barrier together).
double steady_ms(const World& world, const RankIteration& before, const RankIteration& it) {
  std::ostringstream line;
  line << before.end_since_barrier_ns << ' ' << it.end_since_barrier_ns;
  std::int64_t last_end = -1, last_before = 0;
  for (const std::string& one : world.all_gather(line.str())) {
    std::istringstream in(one);
    std::int64_t b = 0, e = 0;
    in >> b >> e;
    if (e > last_end) {
      last_end = e;
      last_before = b;
    }
  }
  return static_cast<double>(last_end - last_before) / 1e6;
}

void add_samples(const World& world, const RankIteration& it, double iteration_ms, RankSamples& rs) {
  std::ostringstream line;
  line.precision(17);
  line << static_cast<double>(it.compute_ns) / 1e6 << ' ' << static_cast<double>(it.comm_busy_ns) / 1e6 << ' '
       << static_cast<double>(it.idle_ns) / 1e6 << ' ' << static_cast<double>(it.iteration_ns) / 1e6;
  const auto all = world.all_gather(line.str());
  const std::size_t n = all.size();
  for (auto* v : {&rs.compute, &rs.busy, &rs.idle, &rs.share}) v->resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    std::istringstream in(all[r]);
    double c = 0, b = 0, i = 0, local = 0;
    in >> c >> b >> i >> local;
    rs.compute[r].push_back(c);
    rs.busy[r].push_back(b);
    // Idle against the iteration (max over ranks): a rank that finished early waited for the rest.
    rs.idle[r].push_back(i + std::max(0.0, iteration_ms - local));
    rs.share[r].push_back(iteration_ms > 0 ? b / iteration_ms : 0);
  }
}

// The last iteration's spans of every rank, as trace events (one process per rank).
std::vector<std::vector<TraceEvent>> gather_timeline(const World& world, const RankJob& job, const RankIteration& it) {
  nlohmann::json mine = nlohmann::json::array();
  for (std::size_t i = 0; i < job.program.tasks.size() && i < it.spans.size(); ++i) {
    const Task& t = job.program.tasks[i];
    std::string track = "compute";
    if (t.kind == Task::Kind::kCollective) {
      track = "collectives";
    } else if (t.kind == Task::Kind::kP2P || t.kind == Task::Kind::kWait) {
      bool sends = false;
      for (std::uint32_t k = t.first_op; k < t.first_op + t.nops; ++k) sends = sends || job.program.ops[k].send;
      track = t.kind == Task::Kind::kWait ? "recv" : sends ? "send" : "recv";
    }
    const std::string name = t.kind == Task::Kind::kCollective
                                 ? job.collectives.at(static_cast<std::size_t>(t.collective)).label
                                 : t.label();
    mine.push_back({track, name, it.spans[i].start_ns, it.spans[i].end_ns});
  }
  const auto all = world.all_gather(mine.dump());
  std::vector<std::vector<TraceEvent>> out;
  for (std::size_t r = 0; r < all.size(); ++r) {
    out.emplace_back();
    for (const auto& e : nlohmann::json::parse(all[r])) {
      out.back().push_back({static_cast<int>(r), e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<SimTime>(),
                            e[3].get<SimTime>()});
    }
  }
  return out;
}

// Rank 0 (which holds the prediction): the last iteration against the simulation of the same schedule.
std::vector<RankDrift> drift_against(const Prediction* p, const ScheduleId& id,
                                     const std::vector<std::vector<TraceEvent>>& timeline,
                                     const std::vector<int>& pp_of_rank) {
  if (!p) return {};
  for (const auto& s : p->schedules) {
    if (s.id == id) return task_drift(timeline, s.sim, pp_of_rank);
  }
  return {};
}

void finish_stats(const RankSamples& rs, const std::optional<SchedulePrediction>& pred,
                  const std::vector<int>& pp_of_rank, ScheduleReplay& s) {
  s.median_ms = median(s.iteration_ms);
  s.min_ms = *std::min_element(s.iteration_ms.begin(), s.iteration_ms.end());
  s.max_ms = *std::max_element(s.iteration_ms.begin(), s.iteration_ms.end());
  if (pred) s.predicted_ms = pred->iteration_ms;
  s.per_rank.clear();
  for (std::size_t r = 0; r < rs.compute.size(); ++r) {
    ReplayRankStats st;
    st.rank = static_cast<int>(r);
    st.compute_ms = median(rs.compute[r]);
    st.comm_busy_ms = median(rs.busy[r]);
    st.idle_ms = median(rs.idle[r]);
    st.comm_share = median(rs.share[r]);
    const int pr = r < pp_of_rank.size() ? pp_of_rank[r] : -1;
    if (pred && pr >= 0 && static_cast<std::size_t>(pr) < pred->ranks.size())
      st.predicted_comm_share = pred->ranks[static_cast<std::size_t>(pr)].nccl_share;
    s.per_rank.push_back(st);
  }
}

void set_verdict(ReplayResult& r) {
  const ScheduleReplay *measured = nullptr, *predicted = nullptr;
  for (const auto& s : r.schedules) {
    if (s.reference || s.iteration_ms.empty()) continue;
    if (!measured || s.median_ms < measured->median_ms) measured = &s;
    if (s.predicted_ms && (!predicted || *s.predicted_ms < *predicted->predicted_ms)) predicted = &s;
  }
  r.measured_fastest = measured ? measured->id.key() : "";
  r.predicted_fastest = predicted ? predicted->id.key() : "";
}

// Test hook for the stopped-rank path: PIPEBENCH_REPLAY_TEST_STALL="RANK:ITERATION:SECONDS" makes
// global rank RANK sleep SECONDS at the start of timed iteration ITERATION (0-based) of every schedule,
// as a rank that stopped would; SECONDS "stop" is a rank stopped as by `kill -STOP`: it sleeps 60 s and
// holds its own watchdog back (a stopped process's watchdog thread stops with it, so only the ranks
// waiting on it can speak). Unset (always, outside tests): no effect. Malformed: ignored.
void test_stall(int rank, int iteration, ProgressWatchdog& dog) {
  const char* spec = std::getenv("PIPEBENCH_REPLAY_TEST_STALL");
  if (!spec) return;
  int r = -1, it = -1, used = 0;
  if (std::sscanf(spec, "%d:%d:%n", &r, &it, &used) != 2 || used == 0 || r != rank || it != iteration) return;
  const std::string how = spec + used;
  if (how == "stop") {
    for (int i = 0; i < 600; ++i) {
      dog.start_iteration(iteration);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return;
  }
  char* end = nullptr;
  const double seconds = std::strtod(how.c_str(), &end);
  if (end == how.c_str() || *end != '\0' || !std::isfinite(seconds) || seconds <= 0 || seconds > 3600) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace

Agreement replay_agreement(const ReplayResult& r, double band, const std::string& band_source) {
  std::vector<ReplayedSchedule> held;
  for (const auto& s : r.schedules) {
    if (s.iteration_ms.empty() && s.median_ms <= 0) continue;
    held.push_back({s.id.key(), s.reference, s.predicted_ms.value_or(0), s.median_ms, s.min_ms, s.max_ms});
  }
  return compare_with_replay(held, band, band_source);
}

std::string replay_incomplete_text(const ReplayResult& r) {
  if (r.complete) return "";
  std::string missing;
  for (const auto& key : r.incomplete) missing += (missing.empty() ? "" : ", ") + key;
  return "incomplete: the replay stopped before its end; not measured in full: " + (missing.empty() ? "-" : missing);
}

std::string replay_verdict_text(const ReplayResult& r) {
  const std::string incomplete = replay_incomplete_text(r);
  return (incomplete.empty() ? "" : incomplete + "; ") + "measured fastest " +
         (r.measured_fastest.empty() ? "-" : r.measured_fastest) + ", predicted fastest " +
         (r.predicted_fastest.empty() ? "-" : r.predicted_fastest) + " (" + r.backend + " backend, compute " +
         r.compute + ", " + std::to_string(r.iterations) + " iterations)";
}

ReplayResult replay_plan(const World& world, Backend& backend, ReplayRuntime& rt, const Plan& plan,
                         const ReplayOptions& o, const Prediction* prediction,
                         const std::function<void(const ReplayResult&)>& after_iteration) {
  const int plan_world = plan.layout.world;
  if (plan_world != world.size()) {
    throw UsageError("--plan: the plan's world is " + std::to_string(plan_world) + " ranks but " +
                     std::to_string(world.size()) + " were launched (mpirun -np " + std::to_string(plan_world) + ")");
  }
  if (o.iterations < 1) throw UsageError("--iterations " + std::to_string(o.iterations) + ": must be at least 1");
  PlanJobs pj = o.compute_model ? plan_jobs(plan, *o.compute_model, world.rank(), o.schedule, o.schedule_files)
                                : plan_jobs(plan, o.compute, world.rank(), o.schedule, o.schedule_files);
  ReplayComms comms(backend);
  std::vector<int> ids;
  for (const auto& g : pj.all_groups) ids.push_back(comms.add_group(g));
  const auto predicted = share_prediction(world, pj.jobs, prediction);
  // Pipeline rank of every global rank (the same in every schedule; -1: in no pipeline group).
  std::vector<int> pp_of_rank(static_cast<std::size_t>(world.size()), -1);
  for (const auto& ranks : plan.layout.pp_groups) {
    for (std::size_t i = 0; i < ranks.size(); ++i)
      pp_of_rank.at(static_cast<std::size_t>(ranks[i])) = static_cast<int>(i);
  }
  ReplayResult result;
  result.backend = std::string(rt.name());
  result.compute = o.compute_kind;
  result.world = world.size();
  result.iterations = o.iterations;
  result.complete = false;
  for (const auto& job : pj.jobs) result.planned.push_back(job.id.key());
  for (std::size_t j = 0; j < pj.jobs.size(); ++j) {
    RankJob& job = pj.jobs[j];
    assign_groups(world.rank(), pj.all_groups, ids, job);
    const double yardstick_ms = predicted[j] && predicted[j]->iteration_ms > 0 ? predicted[j]->iteration_ms
                                                                               : world.max(compute_ms(job.program));
    // Default -T: a few times the expected iteration, and never under 10 s (process start-up, a loaded machine).
    const double timeout_s = o.timeout_s >= 0 ? o.timeout_s : std::max(10.0, 5 * yardstick_ms / 1e3);
    ScheduleReplay s;
    s.id = job.id;
    s.reference = job.reference;
    s.step_rule = job.step_rule;
    result.schedules.push_back(s);
    ProgressWatchdog dog(timeout_s, world, job);
    RankSamples rs;
    // Post-validation: every iteration after the warm-up starts at once, with no call over every rank between
    // them (no barrier, no reduction of the samples: those would be the synchronous step it does without); the
    // iterations are reduced once the last has ended.
    const bool back_to_back = job.step_rule == StepRule::kPostValidation;
    std::vector<RankIteration> held;
    const auto record = [&](int i, const RankIteration& it, const RankIteration* before) {
      auto& cur = result.schedules.back();
      const double iteration_ms =
          before ? steady_ms(world, *before, it) : world.max(static_cast<double>(it.iteration_ns) / 1e6);
      cur.iteration_ms.push_back(iteration_ms);
      add_samples(world, it, iteration_ms, rs);
      finish_stats(rs, predicted[j], pp_of_rank, cur);
      if (i == o.iterations - 1 && (o.keep_timeline || predicted[j])) {
        auto timeline = gather_timeline(world, job, it);
        cur.drift = drift_against(prediction, job.id, timeline, pp_of_rank);
        if (o.keep_timeline) cur.timeline = std::move(timeline);
      }
      set_verdict(result);
      result.complete = j + 1 == pj.jobs.size() && i + 1 == o.iterations;
      if (world.rank() == 0 && after_iteration) after_iteration(result);
    };
    for (int i = -1; i < o.iterations; ++i) {
      dog.start_iteration(i);
      test_stall(world.rank(), i, dog);
      RankIteration it = run_iteration(rt, comms, job, dog.progress(), !back_to_back || i < 0);
      if (back_to_back) {
        held.push_back(std::move(it));
      } else if (i >= 0) {
        record(i, it, nullptr);
      }
    }
    for (std::size_t k = 1; k < held.size(); ++k) record(static_cast<int>(k) - 1, held[k], &held[k - 1]);
  }
  return result;
}

}  // namespace pipebench
