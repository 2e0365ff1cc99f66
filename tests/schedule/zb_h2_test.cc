// SPDX-License-Identifier: Apache-2.0
// ZB-H2's order of passes per rank against lists written out by hand from Qi et al., "Zero Bubble Pipeline
// Parallelism", ICLR 2024, §2.2 (Figure 3 bottom, 0-based microbatches), and its memory note.
#include <gtest/gtest.h>

#include <string>

#include "schedule/activation_memory.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

class PassText final : public ProgramSink {
 public:
  void compute(Pass pass, std::int64_t k) override {
    text += (text.empty() ? "" : " ") +
            std::string(pass == Pass::kForward    ? "F"
                        : pass == Pass::kBackward ? "B"
                                                  : "W") +
            std::to_string(k);
  }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  std::string text;
};

ScheduleShape one_chunk(int p, std::int64_t m) {
  ScheduleShape s;
  s.p = p;
  s.m = m;
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(p - 1 - r, m));  // 1F1B's, not used
  s.table = one_chunk_table(m);
  return s;
}

std::string passes_of(int p, std::int64_t m, int r) {
  PassText sink;
  ScheduleRegistry::instance().find("x", "zb-h2").emit(one_chunk(p, m), r, sink);
  return sink.text;
}

// p 4, m 8. Rank r runs 2(p-1-r) warm-up forwards, then F and B alternate; a W follows a B once more than 2r
// are pending, and the rest close the iteration. By hand:
//   rank 0: F0..F5; F6 B0 W0, F7 B1 W1; cool-down B2 W2 .. B7 W7 (2p-1 = 7 forwards before the first B).
//   rank 1: F0..F3; F4 B0, F5 B1 (two W held), F6 B2 W0, F7 B3 W1; B4 W2 .. B7 W5; W6 W7.
//   rank 2: F0 F1; F2 B0 .. F5 B3 (four held), F6 B4 W0, F7 B5 W1; B6 W2, B7 W3; W4 .. W7.
//   rank 3: F0 B0 .. F6 B6 (six held), W0, F7 B7 W1; W2 .. W7: the tail that fills the cool-down.
TEST(ZbH2, StepOrderOfFourRanks) {
  EXPECT_EQ(passes_of(4, 8, 0), "F0 F1 F2 F3 F4 F5 F6 B0 W0 F7 B1 W1 B2 W2 B3 W3 B4 W4 B5 W5 B6 W6 B7 W7");
  EXPECT_EQ(passes_of(4, 8, 1), "F0 F1 F2 F3 F4 B0 F5 B1 F6 B2 W0 F7 B3 W1 B4 W2 B5 W3 B6 W4 B7 W5 W6 W7");
  EXPECT_EQ(passes_of(4, 8, 2), "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 W0 F7 B5 W1 B6 W2 B7 W3 W4 W5 W6 W7");
  EXPECT_EQ(passes_of(4, 8, 3), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 W0 F7 B7 W1 W2 W3 W4 W5 W6 W7");
}

// p 2, m 4: rank 0 runs three forwards before its first B and W right after each B; rank 1 holds two W back.
TEST(ZbH2, StepOrderOfTwoRanks) {
  EXPECT_EQ(passes_of(2, 4, 0), "F0 F1 F2 B0 W0 F3 B1 W1 B2 W2 B3 W3");
  EXPECT_EQ(passes_of(2, 4, 1), "F0 B0 F1 B1 F2 B2 W0 F3 B3 W1 W2 W3");
}

// §2.2: ZB-H2 trades memory for the bubble: 2p-1 microbatches in flight on every rank (the paper's
// (2p-1) M_B), against ZB-H1's and 1F1B's p on rank 0; fewer microbatches bound it.
TEST(ZbH2, HoldsTwicePMinusOneMicrobatchesOnEveryRank) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("x", "zb-h2");
  EXPECT_EQ(peak_activations(g, one_chunk(4, 8)), (std::vector<double>{7, 7, 7, 7}));
  EXPECT_EQ(peak_activations(g, one_chunk(2, 8)), (std::vector<double>{3, 3}));
  EXPECT_EQ(peak_activations(g, one_chunk(4, 3)), (std::vector<double>{3, 3, 3, 3}));
}

TEST(ZbH2, IsAReferenceThatSplitsTheBackward) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("x", "zb-h2");
  EXPECT_TRUE(g.reference());
  EXPECT_TRUE(g.splits_backward());
  EXPECT_FALSE(g.interleaves());
}

}  // namespace
}  // namespace pipebench
