// SPDX-License-Identifier: Apache-2.0
#include "replay/task_drift.h"

#include <gtest/gtest.h>

#include "sim/simulator.h"

namespace pipebench {
namespace {

constexpr SimTime kMs = 1000000;

// One pipeline rank that computes, sends, computes and reduces: F, send, B, "dp grads".
SimResult one_rank_prediction() {
  std::vector<Program> programs(1);
  Task f;
  f.kind = Task::Kind::kCompute;
  f.mb = 0;
  f.duration = 2 * kMs;
  programs[0].tasks.push_back(f);
  Task b = f;
  b.pass = Pass::kBackward;
  b.duration = 4 * kMs;
  programs[0].tasks.push_back(b);
  Task c;
  c.kind = Task::Kind::kCollective;
  c.collective = 0;
  programs[0].tasks.push_back(c);
  const std::vector<SimCollective> colls = {{{0}, 3 * kMs, "dp grads, chunk 0"}};
  SimCosts costs;
  costs.p2p = [](int, int, std::int64_t) { return SimTime{0}; };
  return simulate(programs, colls, costs, true);
}

TEST(TaskDrift, SimulatorRecordsWhenEachTaskWasReached) {
  const SimResult p = one_rank_prediction();
  ASSERT_EQ(p.task_starts.size(), 1u);
  ASSERT_EQ(p.task_starts[0].size(), 3u);
  EXPECT_EQ(p.task_starts[0][0].label, "F mb0 c0");
  EXPECT_EQ(p.task_starts[0][1].label, "B mb0 c0");
  EXPECT_EQ(p.task_starts[0][2].label, "dp grads, chunk 0");
  EXPECT_EQ(p.task_starts[0][1].start, 2 * kMs);
  EXPECT_EQ(p.task_starts[0][2].start, 6 * kMs);
  EXPECT_EQ(p.ranks[0].end, 9 * kMs);
}

TEST(TaskDrift, WithoutAKeptTraceNoStartsAreRecorded) {
  std::vector<Program> programs(1);
  Task f;
  f.duration = kMs;
  programs[0].tasks.push_back(f);
  SimCosts costs;
  costs.p2p = [](int, int, std::int64_t) { return SimTime{0}; };
  EXPECT_TRUE(simulate(programs, {}, costs, false).task_starts.empty());
}

// The replay ran the compute on time, but the reduction took 2 ms longer, and an unplanned collective
// (in the replay only) sat after the forward pass for 0.5 ms.
TEST(TaskDrift, NamesTheTaskThatAddedTheTimeAndSumsToTheEndDrift) {
  const SimResult p = one_rank_prediction();
  const std::vector<std::vector<TraceEvent>> replayed = {{
      {0, "compute", "F mb0 c0", 0, 2 * kMs},
      {0, "collectives", "tp all-reduce", 2 * kMs, 2 * kMs + kMs / 2},
      {0, "compute", "B mb0 c0", 2 * kMs + kMs / 2, 6 * kMs + kMs / 2},
      {0, "collectives", "dp grads, chunk 0", 6 * kMs + kMs / 2, 11 * kMs + kMs / 2},
  }};
  const auto d = task_drift(replayed, p, {0});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].matched, 3);
  EXPECT_EQ(d[0].unmatched, 1);
  EXPECT_DOUBLE_EQ(d[0].end_drift_ms, 2.5);
  EXPECT_DOUBLE_EQ(d[0].by_kind_ms.at("collective"), 2.0);
  EXPECT_DOUBLE_EQ(d[0].by_kind_ms.at("compute"), 0.5);  // the forward's share holds the unplanned 0.5 ms
  ASSERT_EQ(d[0].largest.size(), 3u);
  EXPECT_EQ(d[0].largest[0].task, "dp grads, chunk 0");
  EXPECT_DOUBLE_EQ(d[0].largest[0].added_ms, 2.0);
  EXPECT_EQ(d[0].largest[1].task, "F mb0 c0");
  double sum = 0;
  for (const auto& [kind, ms] : d[0].by_kind_ms) sum += ms;
  EXPECT_DOUBLE_EQ(sum, d[0].end_drift_ms);  // the first task was reached on time: drift 0 there
}

TEST(TaskDrift, RepeatedLabelsMatchByOccurrenceAndRanksMapToTheirPipelineRank) {
  std::vector<Program> programs(2);
  for (auto& prog : programs) {
    for (int i = 0; i < 2; ++i) {
      Task c;
      c.kind = Task::Kind::kCollective;
      c.collective = i;
      prog.tasks.push_back(c);
    }
  }
  const std::vector<SimCollective> colls = {{{0, 1}, kMs, "loss"}, {{0, 1}, kMs, "loss"}};
  SimCosts costs;
  costs.p2p = [](int, int, std::int64_t) { return SimTime{0}; };
  const SimResult p = simulate(programs, colls, costs, true);
  // Global ranks 0..3: two pipeline groups; only the second "loss" of rank 3 ran late (by 1 ms).
  std::vector<std::vector<TraceEvent>> replayed(4);
  for (int r = 0; r < 4; ++r) {
    const SimTime late = r == 3 ? kMs : 0;
    replayed[static_cast<std::size_t>(r)] = {{r, "collectives", "loss", 0, kMs},
                                             {r, "collectives", "loss", kMs, 2 * kMs + late}};
  }
  const auto d = task_drift(replayed, p, {0, 1, 0, 1});
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[3].pipeline_rank, 1);
  EXPECT_EQ(d[3].largest[0].task, "loss #2");
  EXPECT_DOUBLE_EQ(d[3].largest[0].added_ms, 1.0);
  EXPECT_DOUBLE_EQ(d[0].end_drift_ms, 0.0);
  const RankDrift* worst = most_drifted(d);
  ASSERT_NE(worst, nullptr);
  EXPECT_EQ(worst->rank, 3);
}

TEST(TaskDrift, RanksWithoutASimulationAreSkipped) {
  const SimResult p = one_rank_prediction();
  const std::vector<std::vector<TraceEvent>> replayed = {{{0, "compute", "F mb0 c0", 0, 2 * kMs}},
                                                         {{1, "compute", "F mb0 c0", 0, 2 * kMs}}};
  const auto d = task_drift(replayed, p, {0, -1});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].rank, 0);
  EXPECT_EQ(most_drifted({}), nullptr);
}

}  // namespace
}  // namespace pipebench
