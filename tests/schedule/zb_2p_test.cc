// SPDX-License-Identifier: Apache-2.0
// ZB-2p's orders (the Zero Bubble paper's greedy heuristic, §3.1): every pass once and in a valid order on every
// rank, within the paper's memory limit of 2p M_B as the paper counts it, with and without the passes' times.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "schedule/schedule_registry.h"
#include "schedule/shape_fixture.h"

namespace pipebench {
namespace {

struct Step {
  Pass pass;
  std::int64_t mb;
};

class Steps final : public ProgramSink {
 public:
  void compute(Pass pass, std::int64_t k) override { steps.push_back({pass, k}); }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  std::vector<Step> steps;
};

std::vector<std::vector<Step>> orders(const ScheduleShape& shape) {
  std::vector<Steps> sinks(static_cast<std::size_t>(shape.p));
  ScheduleRegistry::instance().find("x", "zb-2p").emit_all(shape, [&sinks](int r) -> ProgramSink& {
    return sinks[static_cast<std::size_t>(r)];
  });
  std::vector<std::vector<Step>> out;
  for (auto& s : sinks) out.push_back(s.steps);
  return out;
}

// The Zero Bubble paper's Table 9 proportions (1.5B): T_F 18.5, T_B 18.1, T_W 9.3 ms per stage, the W about half
// of the F, and its M_W / M_B for h 2304, a 24, s 1024.
ScheduleShape paper_like(int p, std::int64_t m) {
  ScheduleShape s = testing::megatron_like_shape(p, 1, m);
  s.pass_ns.assign(static_cast<std::size_t>(p), {18522, 18086, 9337});
  s.w_held_share = 32.0 * 2304 / (34.0 * 2304 + 5.0 * 24 * 1024);
  return s;
}

// Each rank runs F, B and W of every microbatch once, microbatches in order within each kind, a B after its F
// and a W after its B; the memory the paper counts (F +1, B -(1 - share), W -share, in M_B) never above 2p.
void expect_valid(const ScheduleShape& shape, const std::string& where) {
  const auto all = orders(shape);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(shape.p)) << where;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::array<std::int64_t, 3> next{0, 0, 0};
    double held = 0, peak = 0;
    for (const Step& st : all[r]) {
      const auto kind = static_cast<std::size_t>(st.pass == Pass::kForward ? 0 : st.pass == Pass::kBackward ? 1 : 2);
      ASSERT_EQ(st.mb, next[kind]) << where << " rank " << r;
      ++next[kind];
      if (kind > 0) {
        ASSERT_LT(st.mb, next[kind - 1]) << where << " rank " << r << ": before its earlier pass";
      }
      held += kind == 0 ? 1 : kind == 1 ? shape.w_held_share - 1 : -shape.w_held_share;
      peak = std::max(peak, held);
    }
    EXPECT_EQ(next, (std::array<std::int64_t, 3>{shape.m, shape.m, shape.m})) << where << " rank " << r;
    EXPECT_LE(peak, 2.0 * shape.p + 1e-9) << where << " rank " << r;
  }
}

TEST(Zb2p, EveryRankRunsEachPassOnceInOrderWithinTheMemoryLimit) {
  for (int p : {2, 4, 8}) {
    for (std::int64_t m : {std::int64_t{1}, std::int64_t{3}, std::int64_t{p}, std::int64_t{24}}) {
      const std::string where = "p " + std::to_string(p) + " m " + std::to_string(m);
      expect_valid(testing::megatron_like_shape(p, 1, m), where + " equal passes");
      expect_valid(paper_like(p, m), where + " the paper's times");
    }
  }
}

// Where a W holds a whole microbatch, 2p microbatches in flight is the limit, and a long pipeline reaches it on
// its first rank; where a W holds a third of one, more microbatches wait for their W within the same memory.
TEST(Zb2p, AWeightGradientThatHoldsLessLetsMoreMicrobatchesWaitForTheirW) {
  const auto held_peak = [](const ScheduleShape& shape) {
    std::int64_t held = 0, peak = 0;
    const auto all = orders(shape);
    for (const Step& st : all.front()) {
      held += st.pass == Pass::kForward ? 1 : st.pass == Pass::kWeight ? -1 : 0;
      peak = std::max(peak, held);
    }
    return peak;
  };
  ScheduleShape whole = paper_like(8, 48);
  whole.w_held_share = 1;
  EXPECT_LE(held_peak(whole), 16);
  EXPECT_GT(held_peak(paper_like(8, 48)), held_peak(whole));
}

// The order follows the times: the same shape with the paper's times and with equal passes is planned
// differently (a cheaper W lets ranks defer more of them).
TEST(Zb2p, ThePassesTimesChangeTheOrder) {
  const auto a = orders(paper_like(4, 16));
  ScheduleShape equal = paper_like(4, 16);
  equal.pass_ns.clear();
  const auto b = orders(equal);
  bool differs = false;
  for (std::size_t r = 0; r < a.size(); ++r) {
    for (std::size_t i = 0; i < a[r].size(); ++i)
      differs = differs || a[r][i].pass != b[r][i].pass || a[r][i].mb != b[r][i].mb;
  }
  EXPECT_TRUE(differs);
}

TEST(Zb2p, IsAPostValidationReferenceThatSplitsTheBackward) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("x", "zb-2p");
  EXPECT_TRUE(g.reference());
  EXPECT_TRUE(g.splits_backward());
  EXPECT_FALSE(g.interleaves());
  EXPECT_EQ(g.step_rule(), StepRule::kPostValidation);
}

}  // namespace
}  // namespace pipebench
