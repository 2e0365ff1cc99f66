// SPDX-License-Identifier: Apache-2.0
// The interleaved zero-bubble schedule (PyTorch's ScheduleInterleavedZeroBubble) against lists written out by
// hand: its order of chunk passes per rank, and its memory note.
#include <gtest/gtest.h>

#include <string>

#include "schedule/activation_memory.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

// Passes as "F<microbatch>c<chunk>", so that a list reads as the paper's and PyTorch's figures do.
class PassText final : public ProgramSink {
 public:
  explicit PassText(const ScheduleShape& s) : s_(s) {}
  void compute(Pass pass, std::int64_t k) override {
    text += (text.empty() ? "" : " ") +
            std::string(pass == Pass::kForward    ? "F"
                        : pass == Pass::kBackward ? "B"
                                                  : "W") +
            std::to_string(s_.microbatch(k)) + "c" + std::to_string(s_.chunk(pass, k));
  }
  void call(const Call& /*c*/) override {}
  void wait(int /*handle*/) override {}
  std::string text;

 private:
  const ScheduleShape& s_;
};

// Megatron's forward table with groups of p microbatches, chunk-major inside (megatron.md §3b); the
// warm-up counts are interleaved 1F1B's, which this schedule does not use.
ScheduleShape interleaved(int p, int v, std::int64_t m) {
  ScheduleShape s;
  s.p = p;
  s.v = v;
  s.m = m;
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(2 * (p - r - 1) + (v - 1) * p, m * v));
  for (std::int64_t g = 0; g < m; g += p)
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < std::min<std::int64_t>(g + p, m); ++mb) s.table.emplace_back(mb, c);
  return s;
}

std::string passes_of(int p, int v, std::int64_t m, int r) {
  const ScheduleShape shape = interleaved(p, v, m);
  PassText sink(shape);
  ScheduleRegistry::instance().find("x", "interleaved-zb").emit(shape, r, sink);
  return sink.text;
}

// p 2, v 2, m 4 (groups of N = 2): forwards 0c0 1c0 0c1 1c1 2c0 3c0 2c1 3c1, backwards the same microbatches
// on the mirrored chunk. Rank r warms up with (v-1)N + (p-1-r) forwards (3 and 2) and holds r W passes back:
//   rank 0: F0c0 F1c0 F0c1; then F B W steps: F1c1 B0c1 W0c1, F2c0 B1c1 W1c1, F3c0 B0c0 W0c0, F2c1 B1c0 W1c0,
//           F3c1 B2c1 W2c1; cool-down B3c1 W3c1, B2c0 W2c0, B3c0 W3c0.
//   rank 1: F0c0 F1c0; F0c1 B0c1 (one W held), F1c1 B1c1 W0c1, F2c0 B0c0 W1c1, F3c0 B1c0 W0c0, F2c1 B2c1 W1c0,
//           F3c1 B3c1 W2c1; cool-down B2c0 W3c1, B3c0 W2c0; then W3c0.
TEST(InterleavedZb, StepOrderOfTwoRanks) {
  EXPECT_EQ(passes_of(2, 2, 4, 0),
            "F0c0 F1c0 F0c1 F1c1 B0c1 W0c1 F2c0 B1c1 W1c1 F3c0 B0c0 W0c0 F2c1 B1c0 W1c0 F3c1 B2c1 W2c1 B3c1 W3c1 "
            "B2c0 W2c0 B3c0 W3c0");
  EXPECT_EQ(passes_of(2, 2, 4, 1),
            "F0c0 F1c0 F0c1 B0c1 F1c1 B1c1 W0c1 F2c0 B0c0 W1c1 F3c0 B1c0 W0c0 F2c1 B2c1 W1c0 F3c1 B3c1 W2c1 B2c0 W3c1 "
            "B3c0 W2c0 W3c0");
}

// p 4, v 2, m 4 (one group of N = 4): rank 0 warms up with 4 + 3 = 7 forwards and runs W right after each B;
// rank 3 with 4 and holds 3 W passes back, which fill its cool-down and tail.
TEST(InterleavedZb, StepOrderOfFourRanks) {
  EXPECT_EQ(passes_of(4, 2, 4, 0),
            "F0c0 F1c0 F2c0 F3c0 F0c1 F1c1 F2c1 F3c1 B0c1 W0c1 B1c1 W1c1 B2c1 W2c1 B3c1 W3c1 B0c0 W0c0 B1c0 W1c0 "
            "B2c0 W2c0 B3c0 W3c0");
  EXPECT_EQ(passes_of(4, 2, 4, 3),
            "F0c0 F1c0 F2c0 F3c0 F0c1 B0c1 F1c1 B1c1 F2c1 B2c1 F3c1 B3c1 W0c1 B0c0 W1c1 B1c0 W2c1 B2c0 W3c1 B3c0 "
            "W0c0 W1c0 W2c0 W3c0");
}

// A chunk pass is 1/v of the rank: rank 0 of p 4, v 2, m 8 holds its 7 warm-up forwards and the first steady
// one, 8 chunk passes = 4 microbatches, as 1F1B's rank 0 does; rank 3 holds its 4 warm-up forwards, 4 more
// while 3 W passes are held back: (4 + 4) / 2 = 4, where interleaved 1F1B's rank 3 holds 2.5.
TEST(InterleavedZb, MemoryCountsChunkPassesAsParts) {
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("x", "interleaved-zb");
  EXPECT_EQ(peak_activations(g, interleaved(4, 2, 8)), (std::vector<double>{4, 4, 4, 4}));
  EXPECT_TRUE(g.reference());
  EXPECT_TRUE(g.splits_backward());
  EXPECT_TRUE(g.interleaves());
}

}  // namespace
}  // namespace pipebench
