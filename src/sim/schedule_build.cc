// SPDX-License-Identifier: Apache-2.0
// Schedule build.
#include "sim/schedule_build.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>

#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {
namespace {

// Whether an op of the plan has an op that measures and prices it (a plan may name message classes, such
// as CP's alltoall, that this build has no op for).
bool has_op(const std::string& op) {
  const auto names = OpRegistry::instance().names();
  return std::binary_search(names.begin(), names.end(), op);
}

// The plan's messages of the pipeline group's ranks, costed and sorted into inside / after. P2P
// (send/recv) is the schedule's own: only its size is kept. Every other class (TP, CP's sendrecv ring,
// ...) is priced like the TP collectives; a class with no op is left unpriced and named in the sources.
void sort_messages(const Schedule& s, const CostModel& costs, ScheduleBuild& b) {
  const std::size_t p = b.ranks.size();
  b.inside.assign(p, {});
  b.after.assign(p, {});
  b.inside_comm_ms.assign(p, 0.0);
  for (const auto& msg : s.messages) {
    const auto it = std::find(b.ranks.begin(), b.ranks.end(), msg.rank);
    if (it == b.ranks.end()) continue;
    const auto r = static_cast<std::size_t>(it - b.ranks.begin());
    if (msg.op == "send" || msg.op == "recv") {
      b.spec.p2p_bytes = std::max(b.spec.p2p_bytes, msg.bytes);
      continue;
    }
    if (!has_op(msg.op)) {
      b.unpriced.insert(msg.op);
      b.cost_sources.insert("not priced: " + msg.op + " (no such op)");
      continue;
    }
    std::vector<int> group = msg.group;
    std::sort(group.begin(), group.end());
    const CommCost cc = costs.cost(msg.op, group, msg.bytes);
    b.cost_sources.insert(cc.source);
    const CostedMessage m{msg, static_cast<double>(cc.time) / 1e6 * static_cast<double>(msg.count)};
    if (msg.phase == Phase::kAfter) {
      b.after[r].push_back(m);
    } else {
      b.inside[r].push_back(m);
      b.inside_comm_ms[r] += m.ms;
    }
  }
}

// Compute per microbatch step: layers_per_chunk layers, plus the output layer on the last stage's last
// chunk (backward twice its forward), plus `extra_ms` spread 1/3 forward, 2/3 backward.
void set_compute(ScheduleSpec& spec, const ComputeModel& c, int layers, const std::vector<double>& extra_ms) {
  const int layers_per_chunk = layers / spec.p / spec.v;
  spec.fwd.clear();
  spec.bwd.clear();
  for (int r = 0; r < spec.p; ++r) {
    std::vector<SimTime> f, b;
    const double extra = extra_ms[static_cast<std::size_t>(r)] / static_cast<double>(spec.m * spec.v);
    for (int ch = 0; ch < spec.v; ++ch) {
      double fwd = layers_per_chunk * c.fwd_ms_per_layer, bwd = layers_per_chunk * c.bwd_ms_per_layer;
      if (r == spec.p - 1 && ch == spec.v - 1) {
        fwd += c.output_layer_fwd_ms;
        bwd += 2 * c.output_layer_fwd_ms;
      }
      f.push_back(checked_ns_from_ms(fwd + extra / 3, "the forward step of a model chunk"));
      b.push_back(checked_ns_from_ms(bwd + 2 * extra / 3, "the backward step of a model chunk"));
    }
    spec.fwd.push_back(f);
    spec.bwd.push_back(b);
  }
}

}  // namespace

ScheduleBuild build_schedule(const Plan& plan, const Schedule& s, const ComputeModel& compute, const CostModel& costs,
                             bool fold) {
  const Layout& l = plan.layout;
  if (l.pp_groups.empty()) throw UsageError("plan without pipeline groups");
  ScheduleBuild b;
  b.ranks = l.pp_groups.front();
  ScheduleSpec& spec = b.spec;
  spec.kind = s.name == "gpipe" ? ScheduleKind::kGpipe : s.v > 1 ? ScheduleKind::kInterleaved : ScheduleKind::kOneFOneB;
  spec.p = l.pp;
  spec.v = s.v;
  spec.m = l.microbatches;
  spec.overlap_p2p = plan.args.overlap_p2p;
  // Two compute tasks and up to two P2P calls per microbatch step and rank: bounded before anything is built.
  if (static_cast<double>(l.pp) * static_cast<double>(l.microbatches) * s.v * 4 > static_cast<double>(kMaxSimTasks)) {
    throw UsageError("schedule " + s.name + " (p " + std::to_string(l.pp) + ", v " + std::to_string(s.v) + ", " +
                     std::to_string(l.microbatches) + " microbatches) needs more than " + std::to_string(kMaxSimTasks) +
                     " simulated tasks (the limit; fewer microbatches or a shorter pipeline)");
  }
  spec.warmup = s.warmup;
  spec.table = forward_table(plan.args, l, s.v);
  sort_messages(s, costs, b);
  set_compute(spec, compute, plan.args.num_layers, std::vector<double>(b.ranks.size(), 0.0));
  if (fold) {
    ScheduleSpec folded = spec;
    set_compute(folded, compute, plan.args.num_layers, b.inside_comm_ms);
    b.programs = generate_schedule(folded);
  } else {
    b.programs = generate_schedule(spec);
  }
  // The plan's batch ids are what Megatron issues together; a plan whose batches the schedule does not
  // issue (an edited file) would be timed and simulated as something else.
  const std::string mismatch = batch_mismatch(s, b);
  if (!mismatch.empty()) throw UsageError("plan schedule " + s.name + " v" + std::to_string(s.v) + ": " + mismatch);
  return b;
}

namespace {

// A call as (global rank, Megatron name, its ops sorted): an op is (peer global rank << 2 | grad << 1 | send),
// unused slots -1. Integers, so a million-task schedule is checked without building strings.
using CallKey = std::tuple<int, std::string_view, std::array<std::int64_t, 4>>;

std::int64_t op_code(bool send, int peer, bool grad) {
  return (static_cast<std::int64_t>(peer) << 2) | (grad ? 2 : 0) | (send ? 1 : 0);
}

std::string call_text(const CallKey& k, std::int64_t n) {
  std::string ops;
  for (std::int64_t c : std::get<2>(k)) {
    if (c < 0) continue;
    ops += (ops.empty() ? "" : ", ") + std::string(c & 1 ? "send " : "recv ") + std::to_string(c >> 2) +
           (c & 2 ? " activation grad" : " activation");
  }
  return "rank " + std::to_string(std::get<0>(k)) + " " + std::string(std::get<1>(k)) + " {" + ops + "} x " +
         std::to_string(n);
}

}  // namespace

std::string batch_mismatch(const Schedule& s, const ScheduleBuild& b) {
  if (b.spec.kind == ScheduleKind::kGpipe) return "";  // a reference schedule: the plan has no batches of it
  std::map<CallKey, std::int64_t> plan_calls, program_calls;
  std::map<std::pair<int, int>, std::pair<CallKey, std::int64_t>> batches;  // (rank, batch) -> call, count
  for (const auto& m : s.messages) {
    if (m.op != "send" && m.op != "recv") continue;
    if (m.batch < 0) return "";
    if (std::find(b.ranks.begin(), b.ranks.end(), m.rank) == b.ranks.end()) continue;
    auto [it, added] = batches.try_emplace({m.rank, m.batch});
    auto& [key, count] = it->second;
    if (added) key = CallKey{m.rank, m.call, {-1, -1, -1, -1}};
    auto& ops = std::get<2>(key);
    const std::int64_t code = op_code(m.op == "send", m.peer, m.what == "activation grad");
    if (ops[0] >= 0)
      return "rank " + std::to_string(m.rank) + " batch " + std::to_string(m.batch) + " has more than 4 messages";
    ops[0] = code;
    std::sort(ops.begin(), ops.end());
    count = m.count;
  }
  for (const auto& [id, call] : batches) plan_calls[call.first] += call.second;
  for (std::size_t r = 0; r < b.programs.size() && r < b.ranks.size(); ++r) {
    const Program& prog = b.programs[r];
    for (const Task& t : prog.tasks) {
      if (t.kind != Task::Kind::kP2P || t.nops == 0) continue;
      std::array<std::int64_t, 4> ops{-1, -1, -1, -1};
      for (std::uint32_t i = 0; i < t.nops && i < 4; ++i) {
        const P2POp& op = prog.ops[t.first_op + i];
        ops[i] = op_code(op.send, b.ranks.at(static_cast<std::size_t>(op.peer)), op.tag % 2 != 0);
      }
      std::sort(ops.begin(), ops.end());
      ++program_calls[CallKey{b.ranks[r], t.name, ops}];
    }
  }
  for (const auto& [k, n] : plan_calls) {
    const auto it = program_calls.find(k);
    const std::int64_t got = it == program_calls.end() ? 0 : it->second;
    if (got != n) return "the plan's batches have " + call_text(k, n) + ", the schedule " + std::to_string(got);
  }
  for (const auto& [k, n] : program_calls) {
    if (!plan_calls.count(k)) return "the schedule has " + call_text(k, n) + ", the plan's batches none";
  }
  return "";
}

}  // namespace pipebench
