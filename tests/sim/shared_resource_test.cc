// SPDX-License-Identifier: Apache-2.0
#include "sim/shared_resource.h"

#include <gtest/gtest.h>

#include "sim/simulator.h"

namespace pipebench {
namespace {

constexpr SimTime kMs = 1000000;

SimTime end_of(const std::vector<SharedResources::Completion>& cs, int c) {
  for (const auto& x : cs) {
    if (x.collective == c) return x.at;
  }
  return -1;
}

TEST(SharedResources, AloneACollectiveTakesItsTimeAlone) {
  SharedResources r;
  const auto c = r.start(0, 1.0, 7, 3 * kMs, 10 * kMs);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].at, 13 * kMs);
  std::vector<SharedResources::Completion> next;
  EXPECT_TRUE(r.finish(7, c[0].version, 13 * kMs, next));
  EXPECT_TRUE(next.empty());
}

// Capacity 1: two at once each run at half speed; A (10 ms from 0) and B (10 ms from 5): at 5 A has 5 ms
// left, at half speed it ends at 15, and B, with 5 ms done by then, ends alone at 20.
TEST(SharedResources, AStartOrAnEndRedividesTheResource) {
  SharedResources r;
  const auto a = r.start(0, 1.0, 0, 0, 10 * kMs);
  const auto both = r.start(0, 1.0, 1, 5 * kMs, 10 * kMs);
  EXPECT_EQ(end_of(both, 0), 15 * kMs);
  EXPECT_EQ(end_of(both, 1), 25 * kMs);
  std::vector<SharedResources::Completion> next;
  EXPECT_FALSE(r.finish(0, a[0].version, 10 * kMs, next));  // replaced when B started
  int version_a = 0;
  for (const auto& x : both) version_a = x.collective == 0 ? x.version : version_a;
  ASSERT_TRUE(r.finish(0, version_a, 15 * kMs, next));
  EXPECT_EQ(end_of(next, 1), 20 * kMs);
}

TEST(SharedResources, UpToTheCapacityNobodySlowsDown) {
  SharedResources r;
  (void)r.start(0, 2.0, 0, 0, 10 * kMs);
  const auto both = r.start(0, 2.0, 1, 0, 10 * kMs);
  EXPECT_EQ(end_of(both, 0), 10 * kMs);
  EXPECT_EQ(end_of(both, 1), 10 * kMs);
  // Another resource is not shared with these.
  const auto other = r.start(1, 1.0, 2, 0, 4 * kMs);
  EXPECT_EQ(end_of(other, 2), 4 * kMs);
}

// Two ranks, each reducing its own gradients (1-rank groups) after 1 and 2 ms of compute: alone they
// end at 11 and 12 ms. Sharing a resource of capacity 1: rank 0's has 9 ms left when rank 1's starts at 2,
// both then run at half speed and rank 0's ends at 20; rank 1's has 9 ms done and ends alone at 21.
TEST(SharedResources, TheSimulatorSlowsCollectivesOfOneResourceWhileTheyOverlap) {
  std::vector<Program> programs(2);
  for (int r = 0; r < 2; ++r) {
    Task f;
    f.duration = (r + 1) * kMs;
    programs[static_cast<std::size_t>(r)].tasks.push_back(f);
    Task c;
    c.kind = Task::Kind::kCollective;
    c.collective = r;
    programs[static_cast<std::size_t>(r)].tasks.push_back(c);
  }
  SimCosts costs;
  costs.p2p = [](int, int, std::int64_t) { return SimTime{0}; };
  std::vector<SimCollective> colls = {{{0}, 10 * kMs, "dp grads"}, {{1}, 10 * kMs, "dp grads"}};
  const SimResult alone = simulate(programs, colls, costs, false);
  EXPECT_EQ(alone.ranks[0].end, 11 * kMs);
  EXPECT_EQ(alone.ranks[1].end, 12 * kMs);
  for (auto& c : colls) {
    c.share_key = 0;
    c.share_capacity = 1.0;
  }
  const SimResult shared = simulate(programs, colls, costs, true);
  EXPECT_EQ(shared.ranks[0].end, 20 * kMs);
  EXPECT_EQ(shared.ranks[1].end, 21 * kMs);
  EXPECT_EQ(shared.iteration, 21 * kMs);
  bool traced = false;
  for (const auto& e : shared.trace) {
    if (e.rank == 1 && e.track == "collectives") {
      EXPECT_EQ(e.start, 2 * kMs);
      EXPECT_EQ(e.end, 21 * kMs);
      traced = true;
    }
  }
  EXPECT_TRUE(traced);
}

}  // namespace
}  // namespace pipebench
