// SPDX-License-Identifier: Apache-2.0
// ZB-V: its V placement (stages, peers, the turn on rank p-1 without a transfer), its order of chunk passes
// per rank against lists written out by hand from Qi et al., ICLR 2024, §6, and its memory note.
#include <gtest/gtest.h>

#include <string>

#include "schedule/activation_memory.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// Passes as "F<microbatch>c<chunk>"; calls as "+F1c0" (send) and "-B1c1" (receive), by what they carry.
class Text final : public ProgramSink {
 public:
  explicit Text(const ScheduleShape& s) : s_(s) {}
  void compute(Pass pass, std::int64_t k) override {
    passes += (passes.empty() ? "" : " ") + letter(pass) + std::to_string(s_.microbatch(k)) + "c" +
              std::to_string(s_.chunk(pass, k));
  }
  void call(const Call& c) override {
    for (int i = 0; i < c.nops; ++i) {
      const CallOp& op = c.ops[i];
      const Pass pass = op.grad ? Pass::kBackward : Pass::kForward;
      calls += (calls.empty() ? "" : " ") + std::string(op.send ? "+" : "-") + letter(pass) +
               std::to_string(s_.microbatch(op.k)) + "c" + std::to_string(s_.chunk(op)) + ">" +
               std::to_string(s_.peer(rank, op));
    }
  }
  void wait(int /*handle*/) override {}
  static std::string letter(Pass p) { return p == Pass::kForward ? "F" : p == Pass::kBackward ? "B" : "W"; }
  std::string passes, calls;
  int rank = 0;

 private:
  const ScheduleShape& s_;
};

// Two chunks per rank in Megatron's table (groups of p microbatches), placed as the generator says.
ScheduleShape v_shape(int p, std::int64_t m) {
  ScheduleShape s;
  s.p = p;
  s.v = 2;
  s.m = m;
  s.placement = ScheduleRegistry::instance().find("x", "zbv").placement();
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(2 * (p - r - 1) + p, 2 * m));
  for (std::int64_t g = 0; g < m; g += p)
    for (int c = 0; c < 2; ++c)
      for (std::int64_t mb = g; mb < std::min<std::int64_t>(g + p, m); ++mb) s.table.emplace_back(mb, c);
  return s;
}

Text emitted(int r, const ScheduleShape& shape) {
  Text t(shape);
  t.rank = r;
  ScheduleRegistry::instance().find("x", "zbv").emit(shape, r, t);
  return t;
}

TEST(Zbv, StagesRunDownTheRanksAndBackUp) {
  const ScheduleShape s = v_shape(4, 8);
  EXPECT_EQ(s.stage(0, 0), 0);
  EXPECT_EQ(s.stage(3, 0), 3);
  EXPECT_EQ(s.stage(3, 1), 4);
  EXPECT_EQ(s.stage(0, 1), 7);
  for (int stage = 0; stage < 8; ++stage) EXPECT_EQ(s.stage(s.rank_of(stage), stage < 4 ? 0 : 1), stage);
}

// p 2, m 4, by hand (rank r: 2(p-r)-1 forwards of chunk 0; r times F c1, F c0; p-r times F B W of c1; then
// F B W of c0 and of c1; cool-down r times B c0, B c1; p-r times B W of c0; the W passes left):
//   rank 0: F0c0 F1c0 F2c0 | F0c1 B0c1 W0c1, F1c1 B1c1 W1c1 | F3c0 B0c0 W0c0 F2c1 B2c1 W2c1, B1c0 W1c0 F3c1 B3c1
//           W3c1 | B2c0 W2c0, B3c0 W3c0.
//   rank 1: F0c0 | F0c1 F1c0 | F1c1 B0c1 W0c1 | F2c0 B0c0 W0c0 F2c1 B1c1 W1c1, F3c0 B1c0 W1c0 F3c1 B2c1 W2c1 |
//           B2c0 B3c1 | B3c0 W2c0 | W3c1 | W3c0.
// Rank 1 hands chunk 0's output to its own chunk 1 (stages 1 and 2) without a call; rank 0 holds stage 3, the
// last, whose backward follows its own forward.
TEST(Zbv, StepOrderOfTwoRanks) {
  const ScheduleShape s = v_shape(2, 4);
  EXPECT_EQ(emitted(0, s).passes,
            "F0c0 F1c0 F2c0 F0c1 B0c1 W0c1 F1c1 B1c1 W1c1 F3c0 B0c0 W0c0 F2c1 B2c1 W2c1 B1c0 W1c0 F3c1 B3c1 W3c1 "
            "B2c0 W2c0 B3c0 W3c0");
  EXPECT_EQ(emitted(1, s).passes,
            "F0c0 F0c1 F1c0 F1c1 B0c1 W0c1 F2c0 B0c0 W0c0 F2c1 B1c1 W1c1 F3c0 B1c0 W1c0 F3c1 B2c1 W2c1 B2c0 B3c1 "
            "B3c0 W2c0 W3c1 W3c0");
}

// p 4, m 8, ranks 0 and 3 by hand: rank 0 warms up with 7 forwards of chunk 0 and 4 F B W of chunk 1; rank 3
// alternates the chunks from the start, its chunk 0 feeding its chunk 1, and ends with three B pairs, one B W
// of chunk 0 and the seven W passes left (chunk 1's first).
TEST(Zbv, StepOrderOfFourRanks) {
  const ScheduleShape s = v_shape(4, 8);
  EXPECT_EQ(emitted(0, s).passes,
            "F0c0 F1c0 F2c0 F3c0 F4c0 F5c0 F6c0 F0c1 B0c1 W0c1 F1c1 B1c1 W1c1 F2c1 B2c1 W2c1 F3c1 B3c1 W3c1 F7c0 "
            "B0c0 W0c0 F4c1 B4c1 W4c1 B1c0 W1c0 F5c1 B5c1 W5c1 B2c0 W2c0 F6c1 B6c1 W6c1 B3c0 W3c0 F7c1 B7c1 W7c1 "
            "B4c0 W4c0 B5c0 W5c0 B6c0 W6c0 B7c0 W7c0");
  EXPECT_EQ(emitted(3, s).passes,
            "F0c0 F0c1 F1c0 F1c1 F2c0 F2c1 F3c0 F3c1 B0c1 W0c1 F4c0 B0c0 W0c0 F4c1 B1c1 W1c1 F5c0 B1c0 W1c0 F5c1 "
            "B2c1 W2c1 F6c0 B2c0 W2c0 F6c1 B3c1 W3c1 F7c0 B3c0 W3c0 F7c1 B4c1 W4c1 B4c0 B5c1 B5c0 B6c1 B6c0 B7c1 "
            "B7c0 W4c0 W5c1 W6c1 W7c1 W5c0 W6c0 W7c0");
}

// The calls of rank 1 of p 2 (stages 1 and 2): it receives chunk 0's input from rank 0 and sends chunk 1's
// output back to rank 0 (and the grads the other way); nothing goes between its own two chunks.
TEST(Zbv, TheTurnOnTheLastRankIsNoTransfer) {
  const ScheduleShape s = v_shape(2, 1);
  const Text t = emitted(1, s);
  EXPECT_EQ(t.passes, "F0c0 F0c1 B0c1 W0c1 B0c0 W0c0");
  EXPECT_EQ(t.calls, "-F0c0>0 +F0c1>0 -B0c1>0 +B0c0>0");
  EXPECT_EQ(emitted(0, s).calls, "+F0c0>1 -F0c1>1 +B0c1>1 -B0c0>1");
}

// §6: ZB-V holds 1F1B's peak, p microbatches (2p chunk passes of half a microbatch), on every rank.
TEST(Zbv, HoldsPMicrobatchesOnEveryRank) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("x", "zbv");
  EXPECT_EQ(peak_activations(g, v_shape(4, 8)), (std::vector<double>{4, 4, 4, 4}));
  EXPECT_EQ(peak_activations(g, v_shape(2, 8)), (std::vector<double>{2, 2}));
  EXPECT_TRUE(g.reference());
  EXPECT_TRUE(g.splits_backward());
  EXPECT_EQ(g.chunks(), 2);
}

}  // namespace
}  // namespace pipebench
