// SPDX-License-Identifier: Apache-2.0
// gemm_step: a compute step of the replay's GEMM compute runs its planned time in whole layer passes
// and the closest subset of one more pass, not a rounded number of passes.
#include "backend/gemm_steps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pipebench {
namespace {

// A layer of four GEMMs with FLOP shares 0.1, 0.2, 0.3, 0.4 (2*m*n*k with m = n = 1: k carries it).
std::vector<GemmShape> four_gemms() {
  return {{"a", 1, 1, 100, 1}, {"b", 1, 1, 200, 1}, {"c", 1, 1, 300, 1}, {"d", 1, 1, 400, 1}};
}

TEST(GemmStep, WholeLayersRunWholePassesAndNothingMore) {
  const GemmStep s = gemm_step(4'000'000, 1'000'000, four_gemms());
  EXPECT_EQ(s.passes, 4);
  EXPECT_TRUE(s.extra.empty());
  EXPECT_DOUBLE_EQ(s.run_layers, 4.0);
}

TEST(GemmStep, APartOfALayerRunsTheGemmsWhoseFlopsMatchIt) {
  // 4.6 layers (a last stage's forward with its logits GEMM): 4 passes and 0.6 of a fifth, where
  // rounding whole passes ran 5.
  const GemmStep s = gemm_step(4'600'000, 1'000'000, four_gemms());
  EXPECT_EQ(s.passes, 4);
  EXPECT_NEAR(s.planned_layers, 4.6, 1e-12);
  EXPECT_NEAR(s.run_layers, 4.6, 1e-9);
  double extra = 0;
  for (std::size_t i : s.extra) extra += 0.1 * static_cast<double>(i + 1);
  EXPECT_NEAR(extra, 0.6, 1e-9);
}

TEST(GemmStep, TheRestIsMatchedWithinHalfTheSmallestGemm) {
  const auto layer = four_gemms();
  for (std::int64_t d = 50'000; d <= 3'000'000; d += 37'000) {
    const GemmStep s = gemm_step(d, 1'000'000, layer);
    EXPECT_LE(std::fabs(s.run_layers - s.planned_layers), 0.05 + 1e-9) << d << " ns";
  }
}

TEST(GemmStep, AShortStepStillRunsAGemmAndNoStepRunsForNothing) {
  const GemmStep tiny = gemm_step(10'000, 1'000'000, four_gemms());  // 0.01 of a layer
  EXPECT_EQ(tiny.passes, 0);
  ASSERT_EQ(tiny.extra.size(), 1u);
  EXPECT_EQ(tiny.extra[0], 0u);  // the smallest
  const GemmStep none = gemm_step(0, 1'000'000, four_gemms());
  EXPECT_EQ(none.passes, 0);
  EXPECT_TRUE(none.extra.empty());
  const GemmStep unknown_rate = gemm_step(5'000'000, 0, four_gemms());
  EXPECT_EQ(unknown_rate.passes, 1);
}

TEST(GemmStep, ManyGemmsAreMatchedGreedilyWithinHalfTheLargest) {
  std::vector<GemmShape> layer;
  for (int i = 1; i <= 20; ++i) layer.push_back({"g", 1, 1, i, 1});  // 20 GEMMs: no exhaustive search
  const GemmStep s = gemm_step(2'500'000, 1'000'000, layer);
  EXPECT_EQ(s.passes, 2);
  EXPECT_LE(std::fabs(s.run_layers - 2.5), 20.0 / 210.0 / 2 + 1e-9);
}

}  // namespace
}  // namespace pipebench
