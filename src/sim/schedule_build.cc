// SPDX-License-Identifier: Apache-2.0
// Schedule build.
#include "sim/schedule_build.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "megatron/pipeline_split.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// The plan's messages of the pipeline group's ranks, costed and sorted into inside / after. P2P
// (send/recv) is the schedule's own: only its size is kept. Every other class (TP, CP's sendrecv ring,
// ...) is priced like the TP collectives.
void sort_messages(const Schedule& s, const CostModel& costs, ScheduleBuild& b) {
  const std::size_t p = b.ranks.size();
  b.inside.assign(p, {});
  b.after.assign(p, {});
  b.inside_comm_ms.assign(p, 0.0);
  b.inside_forward_ms.assign(p, 0.0);
  for (const auto& msg : s.messages) {
    const auto it = std::find(b.ranks.begin(), b.ranks.end(), msg.rank);
    if (it == b.ranks.end()) continue;
    const auto r = static_cast<std::size_t>(it - b.ranks.begin());
    if (msg.op.is_p2p()) {
      b.spec.p2p_bytes = std::max(b.spec.p2p_bytes, msg.bytes);
      continue;
    }
    std::vector<int> group = msg.group;
    std::sort(group.begin(), group.end());
    const CommCost cc = costs.cost(*msg.op.collective(), group, msg.bytes);
    b.cost_sources.insert(cc.source);
    const double call_ms = static_cast<double>(cc.time) / 1e6;
    const CostedMessage m{msg, call_ms * static_cast<double>(msg.count)};
    if (msg.phase == Phase::kAfter) {
      b.after[r].push_back(m);
    } else {
      b.inside[r].push_back(m);
      b.inside_comm_ms[r] += m.ms;
      b.inside_forward_ms[r] += call_ms * static_cast<double>(msg.passes.forward);
    }
  }
}

// Compute per microbatch step: the layers of the chunk's model stage s (from the plan's split, pipeline_split.h:
// even, or uneven first / last stages, or the embedding and loss slots; stage s = chunk x p + pipeline rank in
// Megatron's interleaved order, so its layers are those of chunk s / p of rank s mod p), plus the output layer on the
// chunk that holds the last stage (rank p-1's last chunk; rank 0's second with the V placement; backward twice its
// forward), plus the rank's in-schedule collectives: `extra_forward_ms` spread over its forward steps and the rest of
// `extra_ms` over its backward steps. Where the schedule splits the backward, W gets w_share of the compute (Qi et
// al. §2: the weight-gradient GEMMs) and B the rest with the backward's collectives (they run with the B pass). A
// compute model measured per rank (ComputeModel::ranks) gives each rank its own times per layer and adds its host time
// per pass to every pass; a uniform one adds its pass_overhead_ms (measured on the GPU, or 0).
void set_compute(ScheduleSpec& spec, const ComputeModel& c, const MegatronArgs& a, const std::vector<double>& extra_ms,
                 const std::vector<double>& extra_forward_ms) {
  const bool split = schedule_generator(spec.id).splits_backward();
  const ScheduleShape& s = spec.shape;
  spec.fwd.clear();
  spec.bwd.clear();
  spec.wgt.clear();
  for (int r = 0; r < s.p; ++r) {
    std::vector<SimTime> f, b, w;
    const double steps = static_cast<double>(s.m * s.v);
    const double extra_f = extra_forward_ms[static_cast<std::size_t>(r)] / steps;
    const double extra_b = extra_ms[static_cast<std::size_t>(r)] / steps - extra_f;
    const auto rank = static_cast<std::size_t>(r);
    const RankCompute uniform{c.fwd_ms_per_layer, c.bwd_ms_per_layer, c.w_share, c.pass_overhead_ms, c.optimizer_ms};
    const RankCompute& rc = c.per_rank() ? c.ranks.at(rank) : uniform;
    for (int ch = 0; ch < s.v; ++ch) {
      const int stage = s.stage(r, ch);
      const int n = chunk_layer_range(a, s.p, stage % s.p, stage / s.p, s.v).count;
      double fwd = n * rc.fwd_ms_per_layer, bwd = n * rc.bwd_ms_per_layer;
      if (stage == s.p * s.v - 1) {
        fwd += c.output_layer_ms(rank);
        bwd += 2 * c.output_layer_ms(rank);
      }
      f.push_back(checked_ns_from_ms(fwd + extra_f + rc.pass_overhead_ms, "the forward step of a model chunk"));
      const double wgt = split ? bwd * rc.w_share : 0;
      b.push_back(checked_ns_from_ms(bwd - wgt + extra_b + rc.pass_overhead_ms, "the backward step of a model chunk"));
      if (split)
        w.push_back(checked_ns_from_ms(wgt + rc.pass_overhead_ms, "the weight-gradient step of a model chunk"));
    }
    spec.fwd.push_back(f);
    spec.bwd.push_back(b);
    if (split) spec.wgt.push_back(w);
  }
}

// What a generator that orders its passes by their times plans with (ScheduleShape::pass_ns, w_held_share): the
// unfolded times, which the predictor and the replay share, and the share of a microbatch's activations its W
// still holds (Qi et al., ICLR 2024, §3.1: M_W = 32bsh, M_B = 34bsh + 5as^2b per layer).
void plan_times(ScheduleSpec& spec, const MegatronArgs& a) {
  ScheduleShape& s = spec.shape;
  const double h = a.hidden, heads = a.heads, seq = static_cast<double>(a.seq_length);
  if (h > 0 && heads > 0 && seq > 0) s.w_held_share = 32 * h / (34 * h + 5 * heads * seq);
  s.pass_ns.clear();
  if (s.v != 1 || spec.wgt.empty()) return;
  for (int r = 0; r < s.p; ++r) {
    const auto i = static_cast<std::size_t>(r);
    s.pass_ns.push_back({spec.fwd[i][0], spec.bwd[i][0], spec.wgt[i][0]});
  }
}

}  // namespace

std::string task_limit_problem(const Plan& plan, const Schedule& s) {
  const Layout& l = plan.layout;
  // Two compute tasks and up to two P2P calls per microbatch step and rank (a split backward: three, with up
  // to three calls and a wait): bounded before anything is built.
  const double per_step = schedule_generator(s.id).splits_backward() ? 7 : 4;
  if (static_cast<double>(l.pp) * static_cast<double>(l.microbatches) * s.id.v * per_step <=
      static_cast<double>(kMaxSimTasks))
    return {};
  return "schedule " + s.id.name + " (p " + std::to_string(l.pp) + ", v " + std::to_string(s.id.v) + ", " +
         std::to_string(l.microbatches) + " microbatches) needs more than " + std::to_string(kMaxSimTasks) +
         " simulated tasks (the limit; fewer microbatches or a shorter pipeline)";
}

namespace {

// Everything of the build but its programs; returns the spec they are generated from (the folded one with
// fold).
ScheduleSpec prepare_build(const Plan& plan, const Schedule& s, const ComputeModel& compute, const CostModel& costs,
                           bool fold, ScheduleBuild& b) {
  const Layout& l = plan.layout;
  if (l.pp_groups.empty()) throw UsageError("plan without pipeline groups");
  b.ranks = l.pp_groups.front();
  ScheduleSpec& spec = b.spec;
  spec.id = s.id;
  if (const std::string problem = task_limit_problem(plan, s); !problem.empty()) throw UsageError(problem);
  spec.shape = megatron_shape(plan.args, l, s.id);
  sort_messages(s, costs, b);
  const std::vector<double> none(b.ranks.size(), 0.0);
  set_compute(spec, compute, plan.args, none, none);
  plan_times(spec, plan.args);
  // Passes measured by a profile hold the collectives that ran inside them already.
  if (!fold || compute.per_rank()) return spec;
  ScheduleSpec folded = spec;
  set_compute(folded, compute, plan.args, b.inside_comm_ms, b.inside_forward_ms);
  return folded;
}

}  // namespace

void add_optimizer_step(Program& program, double optimizer_ms) {
  if (optimizer_ms <= 0) return;
  Task t;
  t.duration = checked_ns_from_ms(optimizer_ms, "--optimizer-ms");
  t.name = "optimizer";
  program.tasks.push_back(t);
}

void release_sends(Program& program) {
  Program out;
  out.tasks.reserve(program.tasks.size());
  out.ops.reserve(program.ops.size());
  std::vector<P2POp> sends, recvs;
  for (const Task& t : program.tasks) {
    if (t.kind != Task::Kind::kP2P) {
      out.tasks.push_back(t);
      continue;
    }
    sends.clear();
    recvs.clear();
    for (std::uint32_t i = t.first_op; i < t.first_op + t.nops; ++i)
      (program.ops[i].send ? sends : recvs).push_back(program.ops[i]);
    if (!sends.empty()) {
      Task posted = t;
      posted.blocking = false;
      posted.handle = -1;
      out.add_p2p(posted, sends.data(), sends.size());
    }
    if (!recvs.empty() || sends.empty()) out.add_p2p(t, recvs.data(), recvs.size());
  }
  program = std::move(out);
}

ScheduleBuild build_schedule(const Plan& plan, const Schedule& s, const ComputeModel& compute, const CostModel& costs,
                             bool fold) {
  ScheduleBuild b;
  b.programs = generate_schedule(prepare_build(plan, s, compute, costs, fold, b));
  if (!compute.sends_block)
    for (Program& p : b.programs) release_sends(p);
  return b;
}

ScheduleBuild build_schedule(const Plan& plan, const Schedule& s, const ComputeModel& compute, const CostModel& costs,
                             bool fold, const std::function<void(const ScheduleBuild&, int, Program&)>& take) {
  ScheduleBuild b;
  generate_schedule(prepare_build(plan, s, compute, costs, fold, b), [&b, &take, &compute](int r, Program& p) {
    if (!compute.sends_block) release_sends(p);
    take(b, r, p);
  });
  return b;
}

}  // namespace pipebench
