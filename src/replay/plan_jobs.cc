// SPDX-License-Identifier: Apache-2.0
// Plan -> per-rank jobs on build_schedule (sim/schedule_build.h), the one source of predict's task lists.
#include "replay/plan_jobs.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "core/error.h"
#include "schedule/schedule_registry.h"
#include "sim/cost_model.h"
#include "sim/schedule_build.h"

namespace pipebench {
namespace {

bool usable(double x) { return std::isfinite(x) && x >= 0; }

// The plan message as the call bench --plan timed: its op and dtype, its bytes, n times, on its group.
ReplayCollective replay_collective(const PlanMessage& msg, std::int64_t n) {
  std::vector<int> group = msg.group;
  std::sort(group.begin(), group.end());
  return {msg.op.collective(), msg.dtype, msg.bytes, static_cast<int>(n), group, msg.what};
}

void add_groups(const Schedule& s, std::set<std::vector<int>>& groups) {
  for (const auto& msg : s.messages) {
    if (msg.op.is_p2p()) continue;
    auto g = msg.group;
    std::sort(g.begin(), g.end());
    groups.insert(g);
  }
}

// How many of `total` calls the k-th of `steps` steps issues: spread evenly, the remainder on the
// steps where floor((k+1) total / steps) steps up, so the steps together issue exactly `total`.
std::int64_t calls_at(std::int64_t total, std::int64_t steps, std::int64_t k) {
  return (k + 1) * total / steps - k * total / steps;
}

// The in-schedule collectives (TP, CP, cross entropy, data broadcasts, per-microbatch loss) of this rank
// at their exact sizes and groups, issued after the forward and backward compute steps they belong to (the
// plan's calls per pass, plan.h PassCalls): each message's forward calls spread evenly over the m*v forward
// steps, its backward and recomputed-forward calls over the backward steps (B where the backward is split; W
// passes issue none). Position inside a step is not modelled (the
// step's compute runs first).
void insert_inside_collectives(const Schedule& s, int global_rank, RankJob& job) {
  std::vector<const PlanMessage*> inside;
  for (const auto& msg : s.messages) {
    if (msg.rank == global_rank && msg.phase != Phase::kAfter && !msg.op.is_p2p()) inside.push_back(&msg);
  }
  if (inside.empty()) return;
  std::int64_t fwd_steps = 0, bwd_steps = 0;
  for (const auto& t : job.program.tasks) {
    if (t.kind == Task::Kind::kCompute && t.mb >= 0 && t.pass != Pass::kWeight)
      ++(t.pass == Pass::kForward ? fwd_steps : bwd_steps);
  }
  std::vector<Task> tasks;
  tasks.reserve(job.program.tasks.size() * (1 + inside.size()));
  std::int64_t fwd_k = 0, bwd_k = 0;
  for (const auto& t : job.program.tasks) {
    tasks.push_back(t);
    if (t.kind != Task::Kind::kCompute || t.mb < 0 || t.pass == Pass::kWeight) continue;  // W: no collectives
    const bool forward = t.pass == Pass::kForward;
    const std::int64_t k = forward ? fwd_k++ : bwd_k++;
    for (const PlanMessage* msg : inside) {
      const std::int64_t total = forward ? msg->passes.forward : msg->passes.in_backward();
      const std::int64_t n = calls_at(total, forward ? fwd_steps : bwd_steps, k);
      if (n <= 0) continue;
      Task c;
      c.kind = Task::Kind::kCollective;
      c.pass = t.pass;
      c.collective = static_cast<int>(job.collectives.size());
      job.collectives.push_back(replay_collective(*msg, n));
      tasks.push_back(c);
    }
  }
  job.program.tasks = std::move(tasks);
}

RankJob job_for(const Plan& plan, const Schedule& s, const ComputeModel& compute, int global_rank,
                const std::vector<int>& pp_ranks) {
  RankJob job;
  job.id = s.id;
  job.pipeline_ranks = pp_ranks;
  job.pipeline_rank = static_cast<int>(std::find(pp_ranks.begin(), pp_ranks.end(), global_rank) - pp_ranks.begin());
  // The activations' type, as bench --plan times the transfers.
  const auto p2p = std::find_if(s.messages.begin(), s.messages.end(), [](const auto& m) { return m.op.is_p2p(); });
  if (p2p != s.messages.end()) job.p2p_dtype = p2p->dtype;
  // Collectives are executed, not priced: the build's costs do not enter the programs without fold.
  const ZeroCost free;
  const ScheduleBuild b = build_schedule(plan, s, compute, free, false);
  job.program = b.programs.at(static_cast<std::size_t>(job.pipeline_rank));
  insert_inside_collectives(s, global_rank, job);
  // After the pipeline: this rank's collectives in the plan's order, then the optimizer step; with post-validation
  // without the step's checks, which validate the step later (as the prediction's steady state plays them).
  job.step_rule = schedule_generator(s.id).step_rule();
  for (const auto& msg : s.messages) {
    if (msg.rank != global_rank || msg.phase != Phase::kAfter || msg.op.is_p2p()) continue;
    if (job.step_rule == StepRule::kPostValidation && is_step_check(msg)) continue;
    Task t;
    t.kind = Task::Kind::kCollective;
    t.collective = static_cast<int>(job.collectives.size());
    job.collectives.push_back(replay_collective(msg, msg.count));
    job.program.tasks.push_back(t);
  }
  add_optimizer_step(job.program, compute.optimizer_ms_of(static_cast<std::size_t>(job.pipeline_rank)));
  return job;
}

}  // namespace

PlanJobs plan_jobs(const Plan& plan, const ComputeOptions& c, int global_rank, const std::string& schedule,
                   const std::vector<ScheduleId>& schedule_files) {
  if (!usable(c.fwd_ms_per_layer) || !usable(c.bwd_ms_per_layer) || !usable(c.tflops) || !usable(c.optimizer_ms)) {
    throw UsageError("--fwd-ms-per-layer/--bwd-ms-per-layer/--tflops/--optimizer-ms: must be finite and not negative");
  }
  if (c.fwd_ms_per_layer <= 0 && c.tflops <= 0) {
    throw UsageError("compute time: give --fwd-ms-per-layer MS (> 0), --tflops T (> 0) or --measure-compute");
  }
  return plan_jobs(plan, make_compute_model(plan, c), global_rank, schedule, schedule_files);
}

PlanJobs plan_jobs(const Plan& plan, ComputeModel compute, int global_rank, const std::string& schedule,
                   const std::vector<ScheduleId>& schedule_files) {
  PlanJobs out;
  out.compute = std::move(compute);
  if (out.compute.per_rank() && out.compute.ranks.size() != static_cast<std::size_t>(plan.layout.pp))
    throw UsageError("--profile: compute for " + std::to_string(out.compute.ranks.size()) +
                     " pipeline ranks where the plan has " + std::to_string(plan.layout.pp));
  std::vector<int> pp_ranks;
  for (const auto& g : plan.layout.pp_groups) {
    if (std::find(g.begin(), g.end(), global_rank) != g.end()) pp_ranks = g;
  }
  if (pp_ranks.empty())
    throw UsageError("--plan: rank " + std::to_string(global_rank) + " is in no pipeline group of the plan");
  std::set<std::vector<int>> groups;
  ScheduleSelection selection = parse_schedule_selection("--schedule", schedule);
  selection.files = schedule_files;
  std::vector<PlannedSchedule> planned = selected_schedules(plan, selection);
  // Speed-ups are against 1F1B: a selection without it replays it after its own, as the baseline.
  const auto base =
      std::find_if(plan.schedules.begin(), plan.schedules.end(), [](const Schedule& s) { return s.id.is_baseline(); });
  if (!planned.empty() && base != plan.schedules.end() && !selection.matches(base->id))
    planned.push_back({base->id, &*base, false});
  for (const PlannedSchedule& p : planned) {
    out.jobs.push_back(job_for(plan, p.to_run(), out.compute, global_rank, pp_ranks));
    out.jobs.back().reference = p.reference;
    add_groups(*p.schedule, groups);
  }
  if (out.jobs.empty()) {
    std::string valid;
    for (int v : plan.valid_v) valid += (valid.empty() ? "" : ", ") + std::to_string(v);
    throw UsageError("--schedule " + schedule + ": not a schedule of this plan (it has " + schedule_names(plan) +
                     "; valid v: " + valid + ")");
  }
  out.all_groups.assign(groups.begin(), groups.end());
  return out;
}

}  // namespace pipebench
