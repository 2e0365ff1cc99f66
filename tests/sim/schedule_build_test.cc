// SPDX-License-Identifier: Apache-2.0
// The schedule build shared by predict and executors: ranks, spec, messages inside / after, folding.
#include "sim/schedule_build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <string_view>
#include <tuple>

#include "collectives/registry.h"
#include "core/error.h"
#include "sim/simulator.h"

namespace pipebench {
namespace {

Plan plan_of(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return make_plan(parse_megatron_args(w), 0);
}

// tp 2 x dp 2 x pp 4: TP collectives inside the schedule, DP and embedding gradients after it.
const char* kModel =
    "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
    "--micro-batch-size 1 "
    "--global-batch-size 16 --pipeline-model-parallel-size 4 --tensor-model-parallel-size 2 --bf16 "
    "--vocab-size 1000 --world-size 16";

double compute_ms(const std::vector<Program>& programs, std::size_t r) {
  double ns = 0;
  for (const auto& t : programs[r].tasks) {
    if (t.kind == Task::Kind::kCompute) ns += static_cast<double>(t.duration);
  }
  return ns / 1e6;
}

TEST(ScheduleBuild, SplitsThePipelineGroupsMessagesAndFoldsOnlyWhenAsked) {
  const Plan plan = plan_of(kModel);
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel c = make_compute_model(plan, o);
  const AssumedCost link(10, 5);
  const Schedule& s = plan.schedules.at(0);
  const ScheduleBuild plain = build_schedule(plan, s, c, link, false);
  const ScheduleBuild folded = build_schedule(plan, s, c, link, true);
  EXPECT_EQ(plain.ranks, plan.layout.pp_groups.front());
  EXPECT_EQ(plain.spec.id, (ScheduleId{"1f1b", 1}));
  EXPECT_EQ(plain.spec.shape.p, 4);
  EXPECT_EQ(plain.spec.shape.m, plan.layout.microbatches);
  EXPECT_EQ(plain.spec.shape.warmup, plan.schedules.front().warmup);  // the shape the plan's messages follow
  EXPECT_EQ(plain.spec.p2p_bytes, 256 * 1024 * 2);                    // one bf16 activation, s x b x h
  ASSERT_EQ(plain.programs.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    ASSERT_FALSE(plain.inside[r].empty()) << r;  // TP all-reduces of every layer
    ASSERT_FALSE(plain.after[r].empty()) << r;   // DP gradient all-reduce at least
    double inside = 0;
    for (const auto& m : plain.inside[r]) {
      EXPECT_NE(m.message.op, "send");
      EXPECT_EQ(m.message.rank, plain.ranks[r]);
      EXPECT_NE(m.message.phase, Phase::kAfter);
      inside += m.ms;
    }
    EXPECT_NEAR(plain.inside_comm_ms[r], inside, 1e-9);
    EXPECT_GT(inside, 0);
    for (const auto& m : plain.after[r]) EXPECT_EQ(m.message.phase, Phase::kAfter);
    // The spec never carries the collectives; the folded programs do, once per iteration.
    EXPECT_EQ(plain.spec.fwd, folded.spec.fwd);
    EXPECT_NEAR(compute_ms(folded.programs, r) - compute_ms(plain.programs, r), inside, 1e-3) << r;
  }
  EXPECT_EQ(plain.cost_sources, std::set<std::string>{"assumed"});
}

// A uniform compute model's pass_overhead_ms (measured on the GPU by --measure-compute) lengthens every pass of
// every rank by it, split or not: the compute of a rank grows by the overhead times its passes.
TEST(ScheduleBuild, AUniformPassOverheadLengthensEveryPass) {
  const Plan plan = plan_of(kModel);
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel bare = make_compute_model(plan, o);
  ComputeModel with = bare;
  with.pass_overhead_ms = 0.25;
  const AssumedCost link(10, 5);
  for (const char* name : {"1f1b", "zb-h1"}) {
    const PlannedSchedule ps{ScheduleId{name, 1}, &plan.schedules.at(0), std::string(name) != "1f1b"};
    const ScheduleBuild a = build_schedule(plan, ps.to_run(), bare, link, false);
    const ScheduleBuild b = build_schedule(plan, ps.to_run(), with, link, false);
    const double passes_per_rank = (a.spec.wgt.empty() ? 2.0 : 3.0) * a.spec.shape.m * a.spec.shape.v;
    for (std::size_t r = 0; r < a.programs.size(); ++r)
      EXPECT_NEAR(compute_ms(b.programs, r) - compute_ms(a.programs, r), 0.25 * passes_per_rank, 1e-3) << name << r;
  }
}

TEST(ScheduleBuild, GpipeByNameAndCostModelErrorsPropagate) {
  const Plan plan = plan_of(kModel);
  ComputeOptions o;
  o.tflops = 100;
  const ComputeModel c = make_compute_model(plan, o);
  Schedule g = plan.schedules.at(0);
  g.id = {"gpipe", 1};
  EXPECT_EQ(build_schedule(plan, g, c, ZeroCost{}, true).spec.id.name, "gpipe");
  ResultRecord only;
  only.op = "pair";
  only.ranks = {0, 2};
  only.size_bytes = 1024;
  only.time_us = 3.0;
  only.bidirectional = true;
  const MeasuredCost measured({only}, Placement(), "t.json");
  EXPECT_THROW((void)build_schedule(plan, plan.schedules.at(0), c, measured, true), UsageError);
}

TEST(ScheduleBuild, ContextParallelExchangeIsPricedAndAClassWithoutAnOpIsNamed) {
  // cp 2 x pp 2: P2P [s/cp 512, b 1, h 512] = 262,144 bf16 elements (512 KiB); the CP KV block
  // 2 x 512 x 8 heads x 64 = 524,288 elements (1 MiB) must not be taken for the pipeline's P2P.
  const std::string cp =
      "--num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
      "--micro-batch-size 1 --global-batch-size 2 --context-parallel-size 2 --pipeline-model-parallel-size 2 "
      "--world-size 4 --bf16 --vocab-size 1000";
  const Plan plan = plan_of(cp);
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel c = make_compute_model(plan, o);
  const AssumedCost link(1, 0);  // 1 GB/s, no latency: 1 MiB takes 1,048,576 ns
  const ScheduleBuild b = build_schedule(plan, plan.schedules.at(0), c, link, false);
  EXPECT_EQ(b.spec.p2p_bytes, 512 * 512 * 2);
  double ring_ms = 0;
  for (const auto& m : b.inside[0]) {
    if (m.message.op.is("sendrecv")) ring_ms += m.ms;
  }
  // Rank 0: 2 layers x m 2 x (1 forward + 2 backward) blocks of 1 MiB (bus factor 1) = 12 x 1.048576 ms.
  EXPECT_NEAR(ring_ms, 12 * 1.048576, 1e-6);
  // a2a's alltoall is priced as any collective of the plan.
  const Plan a2a = plan_of(cp + " --cp-comm-type a2a");
  const ScheduleBuild ba = build_schedule(a2a, a2a.schedules.at(0), make_compute_model(a2a, o), link, false);
  double a2a_ms = 0;
  for (const auto& m : ba.inside[0]) {
    if (m.message.op.is("alltoall")) a2a_ms += m.ms;
  }
  EXPECT_GT(a2a_ms, 0);
}

TEST(ScheduleBuild, MoreTasksThanTheLimitAreRefusedBeforeAnyIsBuilt) {
  // p 8, v 8, 16384 microbatches: about 4.2M tasks per schedule, past kMaxSimTasks (2^21).
  const Plan plan = plan_of(
      "--num-layers 64 --hidden-size 64 --num-attention-heads 4 --seq-length 16 --max-position-embeddings 16 "
      "--micro-batch-size 1 "
      "--global-batch-size 16384 --pipeline-model-parallel-size 8 --vocab-size 100 "
      "--num-layers-per-virtual-pipeline-stage 1");
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel c = make_compute_model(plan, o);
  const AssumedCost link(10, 5);
  const Schedule& interleaved = plan.schedules.back();
  ASSERT_EQ(interleaved.id.v, 8);
  try {
    (void)build_schedule(plan, interleaved, c, link, false);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "schedule interleaved (p 8, v 8, 16384 microbatches) needs more than 2097152 simulated tasks (the limit; "
              "fewer microbatches or a shorter pipeline)");
  }
  EXPECT_NO_THROW((void)build_schedule(plan, plan.schedules.front(), c, link, false));  // 1F1B: 524288 tasks
}

TEST(ScheduleBuild, MoeAllToAllIsPricedOnItsEpGroupInsideTheSchedule) {
  // 8 experts, EP 2, pp 2, world 4, s 1024, b 1, h 512, bf16: T = 1024 tokens, top-2: 2048 rows x 512
  // = 1,048,576 elements (2 MiB) per dispatch or combine all-to-all.
  const Plan plan = plan_of(
      "--num-layers 2 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
      "--micro-batch-size 1 --global-batch-size 2 --pipeline-model-parallel-size 2 --world-size 4 --bf16 "
      "--vocab-size 1000 --num-experts 8 --expert-model-parallel-size 2 --moe-token-dispatcher-type alltoall");
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ScheduleBuild b =
      build_schedule(plan, plan.schedules.at(0), make_compute_model(plan, o), AssumedCost(1, 0), false);
  std::int64_t calls = 0;
  for (const auto& m : b.inside[0]) {
    if (!m.message.op.is("alltoall") || m.message.elements != 1048576) continue;
    EXPECT_EQ(m.message.group, (std::vector<int>{0, 1}));
    EXPECT_GT(m.ms, 0);
    calls += m.message.count;
  }
  // dp = 4 / 2 = 2, m = 2 / (1 x 2) = 1: tokens dispatch and combine, forward and backward, 1 layer x m 1
  // on rank 0: 4 calls.
  EXPECT_EQ(calls, 4);
  // The dense P2P size is untouched: [s 1024, b 1, h 512] bf16 = 1 MiB.
  EXPECT_EQ(b.spec.p2p_bytes, 1024 * 512 * 2);
}

// Where the plan's batches (megatron/plan.cc groups each rank's calls into batch ids) and the programs'
// P2P calls differ: per rank, each call (its Megatron name and its ops: send/recv, peer, activation or grad)
// must be issued as often in the programs as the plan's batches of that shape say. "" when they agree.
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

std::map<CallKey, std::int64_t> plan_calls(const Schedule& s, const ScheduleBuild& b) {
  std::map<std::pair<int, int>, std::pair<CallKey, std::int64_t>> batches;  // (rank, batch) -> call, count
  for (const auto& m : s.messages) {
    if ((m.op != "send" && m.op != "recv") || m.batch < 0) continue;
    if (std::find(b.ranks.begin(), b.ranks.end(), m.rank) == b.ranks.end()) continue;
    auto [it, added] = batches.try_emplace({m.rank, m.batch});
    auto& [key, count] = it->second;
    if (added) key = CallKey{m.rank, m.call, {-1, -1, -1, -1}};
    auto& ops = std::get<2>(key);
    ops[0] = op_code(m.op == "send", m.peer, m.what == "activation grad");
    std::sort(ops.begin(), ops.end());
    count = m.count;
  }
  std::map<CallKey, std::int64_t> out;
  for (const auto& [id, call] : batches) out[call.first] += call.second;
  return out;
}

std::string batch_mismatch(const Schedule& s, const ScheduleBuild& b) {
  const std::map<CallKey, std::int64_t> planned = plan_calls(s, b);
  std::map<CallKey, std::int64_t> issued;
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
      ++issued[CallKey{b.ranks[r], t.name, ops}];
    }
  }
  for (const auto& [k, n] : planned) {
    const auto it = issued.find(k);
    const std::int64_t got = it == issued.end() ? 0 : it->second;
    if (got != n) return "the plan's batches have " + call_text(k, n) + ", the schedule " + std::to_string(got);
  }
  for (const auto& [k, n] : issued) {
    if (!planned.count(k)) return "the schedule has " + call_text(k, n) + ", the plan's batches none";
  }
  return "";
}

// The plan's batch ids and the programs the simulator and replay run group the same ops into the same
// calls, for 1F1B, interleaved with and without overlap, p = 2, tp 2 (global peers), and core_v0.9's table.
TEST(ScheduleBuild, ThePlansBatchesAreTheProgramsCalls) {
  const std::string base =
      "--num-layers 16 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --bf16 --vocab-size 1000 ";
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const AssumedCost link(10, 5);
  int checked = 0;
  for (const std::string extra :
       {"--pipeline-model-parallel-size 4 --global-batch-size 8",
        "--pipeline-model-parallel-size 4 --global-batch-size 12",
        "--pipeline-model-parallel-size 4 --global-batch-size 8 --no-overlap-p2p-communication",
        "--pipeline-model-parallel-size 2 --global-batch-size 6",
        "--pipeline-model-parallel-size 4 --tensor-model-parallel-size 2 --global-batch-size 4 --world-size 8",
        "--pipeline-model-parallel-size 4 --global-batch-size 8 --megatron-version core_v0.9"}) {
    const Plan plan = plan_of(base + extra);
    const ComputeModel c = make_compute_model(plan, o);
    for (const auto& s : plan.schedules) {
      const ScheduleBuild b = build_schedule(plan, s, c, link, false);
      EXPECT_EQ(batch_mismatch(s, b), "") << extra << ", " << s.id.label();
      ++checked;
    }
  }
  EXPECT_GE(checked, 12);
}

// Uneven stages (first 2 / last 2 of 10 layers on p 4): each rank computes its own layers.
TEST(ScheduleBuild, UnevenStagesComputeTheirOwnLayers) {
  const Plan plan = plan_of(
      "--num-layers 10 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 --global-batch-size 16 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 "
      "--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2");
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;  // backward 2 ms
  const ComputeModel c = make_compute_model(plan, o);
  const ScheduleBuild b = build_schedule(plan, plan.schedules.at(0), c, AssumedCost(10, 5), false);
  const double m = static_cast<double>(plan.layout.microbatches);
  EXPECT_NEAR(compute_ms(b.programs, 0), 2 * 3 * m, 1e-6);
  EXPECT_NEAR(compute_ms(b.programs, 1), 3 * 3 * m, 1e-6);
  EXPECT_NEAR(compute_ms(b.programs, 2), 3 * 3 * m, 1e-6);
  // The last stage: 2 layers and the output layer.
  EXPECT_NEAR(compute_ms(b.programs, 3), 2 * 3 * m + 3 * c.output_layer_fwd_ms * m, 1e-6);
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// A compute model measured per rank (a profile of the job): each rank's own times per layer and its host time
// on every pass, its own optimizer; the in-schedule collectives are in the measured passes, never folded in.
TEST(ScheduleBuild, PerRankComputeGivesEachRankItsPassesAndNoFold) {
  const Plan plan = plan_of(kModel);
  ComputeModel c;
  c.fwd_ms_per_layer = 1;
  c.bwd_ms_per_layer = 2;
  for (int r = 0; r < 4; ++r) c.ranks.push_back({1.0 + r, 2.0 + 2 * r, 0.5, 0.25, 0});
  const ScheduleBuild b = build_schedule(plan, plan.schedules.front(), c, ZeroCost{}, true);
  ASSERT_EQ(b.spec.fwd.size(), 4u);
  // 4 layers per stage: rank 2's forward 4 x 3 ms + 0.25 ms of host time.
  EXPECT_EQ(b.spec.fwd[2][0], 12'250'000);
  EXPECT_EQ(b.spec.bwd[1][0], 16'250'000);
  // The first stage holds no output layer; the inside collectives (TP) add nothing even with fold.
  EXPECT_EQ(b.spec.fwd[0][0], 4'250'000);
  EXPECT_GT(b.inside_comm_ms[0], -1);  // costed (zero here), but not folded into the passes
}

// release_sends: a call's sends go out apart and are never waited for; its receives keep the call's wait.
TEST(ScheduleBuild, ReleasedSendsNeverHoldTheirRank) {
  Program p;
  Task compute;
  compute.duration = 1'000'000;
  p.tasks.push_back(compute);
  Task call;
  call.name = "send_forward_recv_backward";
  const P2POp ops[] = {{true, 1, 100, 7}, {false, 1, 100, 8}};
  p.add_p2p(call, ops, 2);
  p.tasks.push_back(compute);
  release_sends(p);
  ASSERT_EQ(p.tasks.size(), 4u);
  EXPECT_EQ(p.tasks[1].kind, Task::Kind::kP2P);
  EXPECT_FALSE(p.tasks[1].blocking);
  EXPECT_EQ(p.tasks[1].handle, -1);
  EXPECT_EQ(p.tasks[1].nops, 1);
  EXPECT_TRUE(p.ops[p.tasks[1].first_op].send);
  EXPECT_TRUE(p.tasks[2].blocking);
  EXPECT_EQ(p.tasks[2].nops, 1);
  EXPECT_FALSE(p.ops[p.tasks[2].first_op].send);
  // In a pipeline: rank 0 sends two forwards in a row to a rank that is busy; with the sends released it runs
  // its second pass at once, with Megatron's blocking sends only after the receiver took the first.
  const auto pipeline = [](bool release) {
    std::vector<Program> programs(2);
    Task f;
    f.duration = 1'000'000;
    Task send;
    send.name = "send_forward";
    for (int k = 0; k < 2; ++k) {
      programs[0].tasks.push_back(f);
      const P2POp s{true, 1, 100, k};
      programs[0].add_p2p(send, &s, 1);
    }
    Task busy;
    busy.duration = 5'000'000;
    programs[1].tasks.push_back(busy);
    for (int k = 0; k < 2; ++k) {
      const P2POp r{false, 0, 100, k};
      programs[1].add_p2p(send, &r, 1);
      programs[1].tasks.push_back(f);
    }
    if (release)
      for (auto& prog : programs) release_sends(prog);
    SimCosts costs;
    costs.p2p = [](int, int, std::int64_t) { return SimTime{1000}; };
    return simulate(programs, {}, costs).ranks[0].end;
  };
  EXPECT_EQ(pipeline(true), 2'000'000);   // its two passes back to back
  EXPECT_GT(pipeline(false), 5'000'000);  // held until rank 1 took both forwards
}

}  // namespace
}  // namespace pipebench
