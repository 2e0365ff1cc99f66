// SPDX-License-Identifier: Apache-2.0
// Compiled programs: the same steps, ops and durations as their source, and the same simulation.
#include "sim/compiled_program.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "schedule/shape_fixture.h"
#include "sim/schedules.h"
#include "sim/simulator.h"

namespace pipebench {
namespace {

ScheduleSpec interleaved_spec(int p, int v, std::int64_t m, bool overlap) {
  ScheduleSpec s;
  s.id = {"interleaved", v};
  s.shape = testing::megatron_like_shape(p, v, m);
  s.shape.overlap_p2p = overlap;
  s.p2p_bytes = 1 << 20;
  for (int r = 0; r < p; ++r) {  // every rank and chunk a different duration
    std::vector<SimTime> f, b;
    for (int c = 0; c < v; ++c) {
      f.push_back(1000 + 10 * r + c);
      b.push_back(2000 + 10 * r + c);
    }
    s.fwd.push_back(f);
    s.bwd.push_back(b);
  }
  return s;
}

SimCosts link_costs() {
  SimCosts c;
  c.p2p = [](int src, int dst, std::int64_t bytes) { return SimTime{300 + 7 * src + 3 * dst + bytes / 4096}; };
  c.compute_slowdown_while_comm = 0.25;
  return c;
}

// Each rank's gradient reduction after its pipeline: a 1-rank collective of 50 us, all of them sharing one
// resource of capacity 1 (as `bench --plan`'s at-once records make them) or each alone.
std::vector<SimCollective> add_gradient_reductions(std::vector<Program>& programs, bool shared) {
  std::vector<SimCollective> colls;
  for (std::size_t r = 0; r < programs.size(); ++r) {
    SimCollective c;
    c.members = {static_cast<int>(r)};
    c.duration = 50000;
    c.label = "dp grads";
    c.share_key = shared ? 0 : -1;
    c.share_capacity = 1.0;
    colls.push_back(c);
    Task t;
    t.kind = Task::Kind::kCollective;
    t.collective = static_cast<int>(r);
    programs[r].tasks.push_back(t);
  }
  return colls;
}

void expect_same(const SimResult& a, const SimResult& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].end, b.ranks[r].end) << r;
    EXPECT_EQ(a.ranks[r].compute, b.ranks[r].compute) << r;
    EXPECT_EQ(a.ranks[r].blocked, b.ranks[r].blocked) << r;
    EXPECT_EQ(a.ranks[r].waiting, b.ranks[r].waiting) << r;
    EXPECT_EQ(a.ranks[r].comm_busy, b.ranks[r].comm_busy) << r;
    EXPECT_EQ(a.ranks[r].p2p_bytes_out, b.ranks[r].p2p_bytes_out) << r;
  }
}

TEST(CompiledProgram, KeepsEveryStepOpAndDurationOfAGeneratedSchedule) {
  const auto programs = generate_schedule(interleaved_spec(4, 2, 8, true));
  for (std::size_t r = 0; r < programs.size(); ++r) {
    const Program& p = programs[r];
    const CompiledProgram c = compile_program(Program(p));
    ASSERT_EQ(c.steps.size(), p.tasks.size());
    ASSERT_EQ(c.ops.size(), p.ops.size());
    EXPECT_EQ(c.durations.size(), 4u) << "two chunks, forward and backward";
    EXPECT_EQ(c.source_ops, p.ops.size());
    for (std::size_t i = 0; i < p.tasks.size(); ++i) {
      const Task& t = p.tasks[i];
      const CompiledProgram::Step& s = c.steps[i];
      EXPECT_EQ(s.kind, t.kind) << i;
      if (t.kind == Task::Kind::kCompute) {
        EXPECT_EQ(c.durations[static_cast<std::size_t>(s.arg)], t.duration) << i;
      }
      if (t.kind == Task::Kind::kP2P) {
        EXPECT_EQ(s.nops, t.nops) << i;
        EXPECT_EQ(s.blocking, t.blocking) << i;
        EXPECT_EQ(s.arg, t.handle) << i;
      }
    }
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      EXPECT_EQ(c.ops[i].tag, p.ops[i].tag);
      EXPECT_EQ(c.ops[i].peer, p.ops[i].peer);
      EXPECT_EQ(c.ops[i].send(), p.ops[i].send);
      EXPECT_EQ(c.bytes(c.ops[i]), p.ops[i].bytes);
    }
  }
}

TEST(CompiledProgram, SimulatesLikeItsSource) {
  for (const bool overlap : {true, false}) {
    const auto programs = generate_schedule(interleaved_spec(4, 2, 8, overlap));
    std::vector<CompiledProgram> compiled;
    for (const Program& p : programs) compiled.push_back(compile_program(p));
    expect_same(simulate(compiled, {}, link_costs()), simulate(programs, {}, link_costs()));
  }
}

// The iteration-only run (a break-even search's) ends where the full run does, with the same chain and
// per-rank ends, and keeps none of the per-rank accounts: with overlapped and blocking P2P, compute slowed
// while communication runs, and shared or lone collectives after the pipeline.
TEST(CompiledProgram, TheIterationOnlyRunEndsWhereTheFullRunDoes) {
  for (const bool overlap : {true, false}) {
    for (const bool shared : {true, false}) {
      auto programs = generate_schedule(interleaved_spec(4, 2, 8, overlap));
      const std::vector<SimCollective> colls = add_gradient_reductions(programs, shared);
      std::vector<CompiledProgram> compiled;
      for (const Program& p : programs) compiled.push_back(compile_program(p));
      const SimResult full = simulate(compiled, colls, link_costs());
      const SimResult lean = simulate(compiled, colls, link_costs(), SimDetail::kIterationOnly);
      EXPECT_EQ(lean.iteration, full.iteration) << overlap << shared;
      EXPECT_EQ(lean.iteration_chain_bytes, full.iteration_chain_bytes) << overlap << shared;
      EXPECT_GT(full.iteration_chain_bytes, 0) << overlap << shared;
      ASSERT_EQ(lean.ranks.size(), full.ranks.size());
      for (std::size_t r = 0; r < full.ranks.size(); ++r) {
        EXPECT_EQ(lean.ranks[r].end, full.ranks[r].end) << r;
        EXPECT_GT(full.ranks[r].compute, 0) << r;
        EXPECT_EQ(lean.ranks[r].compute, 0) << r;
        EXPECT_EQ(lean.ranks[r].comm_busy, 0) << r;
        EXPECT_EQ(lean.ranks[r].p2p_bytes_out, 0) << r;
      }
    }
  }
}

// An interleaved schedule with each rank's gradient reduction after it (1-rank groups sharing one resource
// of capacity 1, as `bench --plan`'s at-once records make them): the compiled run, without a trace, ends
// where the traced run of the source does, whose per-task starts name every task in order.
TEST(CompiledProgram, SharedCollectivesAfterThePipelineSimulateLikeTheTracedSource) {
  auto programs = generate_schedule(interleaved_spec(4, 2, 8, true));
  const std::vector<SimCollective> colls = add_gradient_reductions(programs, true);
  std::vector<CompiledProgram> compiled;
  for (const Program& p : programs) compiled.push_back(compile_program(p));
  const SimResult traced = simulate(programs, colls, link_costs(), true);
  expect_same(simulate(compiled, colls, link_costs()), traced);
  std::vector<SimCollective> alone = colls;
  for (auto& c : alone) c.share_key = -1;
  EXPECT_LT(simulate(compiled, alone, link_costs()).iteration, traced.iteration) << "the overlap costs time";
  ASSERT_EQ(traced.task_starts.size(), programs.size());
  for (std::size_t r = 0; r < programs.size(); ++r) {
    ASSERT_EQ(traced.task_starts[r].size(), programs[r].tasks.size()) << r;
    EXPECT_EQ(traced.task_starts[r].front().label, programs[r].tasks.front().label()) << r;
    EXPECT_EQ(traced.task_starts[r].back().label, "dp grads") << r;
  }
}

// Two ranks whose calls name their ops out of order (and one op no call names): the compiled ops follow
// the calls, and the simulation is that of the source.
TEST(CompiledProgram, OpsNamedOutOfOrderFollowTheCalls) {
  std::vector<Program> programs(2);
  programs[0].ops = {{true, 1, 4096, 1}, {true, 1, 4096, 0}, {true, 1, 64, 99}};
  programs[1].ops = {{false, 0, 4096, 0}, {false, 0, 4096, 1}};
  Task compute;
  compute.duration = 500;
  Task first, second;
  first.kind = second.kind = Task::Kind::kP2P;
  first.nops = second.nops = 1;
  first.first_op = 1;  // tag 0 first
  second.first_op = 0;
  programs[0].tasks = {compute, first, compute, second};
  Task both;
  both.kind = Task::Kind::kP2P;
  both.nops = 2;
  programs[1].tasks = {both, compute};
  const CompiledProgram c = compile_program(programs[0]);
  ASSERT_EQ(c.ops.size(), 2u);
  EXPECT_EQ(c.ops[0].tag, 0);
  EXPECT_EQ(c.ops[1].tag, 1);
  EXPECT_EQ(c.max_tag, 99) << "of every op of the source, named or not";
  EXPECT_EQ(c.source_ops, 3u);
  EXPECT_EQ(c.durations.size(), 1u);
  const std::vector<CompiledProgram> compiled = {c, compile_program(programs[1])};
  expect_same(simulate(compiled, {}, link_costs()), simulate(programs, {}, link_costs()));
}

TEST(CompiledProgram, ManyDistinctDurationsShareTheTable) {
  Program p;
  for (int i = 0; i < 100; ++i) {
    Task t;
    t.duration = 1000 + (i % 50);  // 50 distinct, each twice: past the linear scan's 32
    p.tasks.push_back(t);
  }
  const CompiledProgram c = compile_program(p);
  ASSERT_EQ(c.durations.size(), 50u);
  for (std::size_t i = 0; i < p.tasks.size(); ++i)
    EXPECT_EQ(c.durations[static_cast<std::size_t>(c.steps[i].arg)], p.tasks[i].duration) << i;
}

TEST(CompiledProgram, RefusesACallWhoseOpsLiePastTheProgram) {
  Program p;
  p.ops = {{true, 1, 8, 0}};
  Task t;
  t.kind = Task::Kind::kP2P;
  t.first_op = 1;
  t.nops = 1;
  p.tasks = {t};
  EXPECT_THROW((void)compile_program(p), Error);
}

}  // namespace
}  // namespace pipebench
