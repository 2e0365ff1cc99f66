// SPDX-License-Identifier: Apache-2.0
// The memory note: activations held per rank at the peak, counted from each generator's order.
#include "schedule/activation_memory.h"

#include <gtest/gtest.h>

#include "schedule/shape_fixture.h"

namespace pipebench {
namespace {

using testing::megatron_like_shape;

std::vector<double> held(const char* name, int p, int v, std::int64_t m) {
  return peak_activations(ScheduleRegistry::instance().find("x", name), megatron_like_shape(p, v, m));
}

TEST(ActivationMemory, OneFOneBHoldsPMinusRAndGpipeHoldsEveryMicrobatch) {
  EXPECT_EQ(held("1f1b", 4, 1, 8), (std::vector<double>{4, 3, 2, 1}));  // Narayanan et al. 2021 §2.2
  EXPECT_EQ(held("1f1b", 4, 1, 2), (std::vector<double>{2, 2, 2, 1}));  // fewer microbatches than stages
  EXPECT_EQ(held("gpipe", 2, 1, 8), (std::vector<double>{8, 8}));
}

// Interleaved: Megatron's warm-up 2(p-1-r) + (v-1)p chunk passes plus the first steady forward, each 1/v of
// the rank: rank 0 of p 4, v 2 holds (6 + 4 + 1) / 2 = 5.5 microbatches, p (1 + (p-1)/(p v)).
TEST(ActivationMemory, InterleavedCountsChunksAsPartsOfAMicrobatch) {
  EXPECT_EQ(held("interleaved", 4, 2, 8), (std::vector<double>{5.5, 4.5, 3.5, 2.5}));
}

// Qi et al. 2024 §2.1: ZB-H1 holds 1F1B's peak (p) on every rank; a microbatch is held until its W.
TEST(ActivationMemory, ZeroBubbleSchedulesHoldUntilW) {
  EXPECT_EQ(held("zb-h1", 4, 1, 8), (std::vector<double>{4, 4, 4, 4}));
  EXPECT_EQ(held("zb-h1", 4, 1, 2), (std::vector<double>{2, 2, 2, 2}));  // m bounds it
}

}  // namespace
}  // namespace pipebench
