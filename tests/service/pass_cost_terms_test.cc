// SPDX-License-Identifier: Apache-2.0
// A prediction's pass-cost terms: the recorded ones where no flag gives them, each named with its origin.
#include "service/pass_cost_terms.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

PassCosts recorded(double gap_us, double alone_us, double beside_us) {
  PassCosts c;
  c.gpu = "NVIDIA H200";
  c.sync_gap_us.median_us = gap_us;
  c.sync_gap_us.samples = 50;
  c.gemm_alone_us.median_us = alone_us;
  c.gemm_beside_nccl_us.median_us = beside_us;
  c.nccl_beside_us = 1500;
  return c;
}

TEST(PassCostTerms, TheRecordedTermsSetTheGapAndTheSlowdown) {
  ComputeModel m;
  const auto sources = use_pass_costs(recorded(40, 1000, 1100), {}, m);
  EXPECT_DOUBLE_EQ(m.pass_overhead_ms, 0.040);
  EXPECT_DOUBLE_EQ(m.comm_sm_slowdown, 1100.0 / 1000.0 - 1);
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_EQ(sources[0], "pass-gap (40.0 us per pass, measured by bench --plan on NVIDIA H200, median of 50)");
  EXPECT_EQ(sources[1], "comm-sm-slowdown (0.100, measured by bench --plan on NVIDIA H200, median of 50)");
}

TEST(PassCostTerms, AFlagGivenWinsAndOnlyTheGapFlagIsNamed) {
  ComputeModel m;
  const auto sources = use_pass_costs(recorded(40, 1000, 1100), {0.5, 7.0}, m);
  EXPECT_DOUBLE_EQ(m.pass_overhead_ms, 0.007);
  EXPECT_DOUBLE_EQ(m.comm_sm_slowdown, 0.5);
  EXPECT_EQ(sources, std::vector<std::string>{"pass-gap (7.0 us per pass, --pass-gap-us)"});
}

TEST(PassCostTerms, WithoutARecordOrAFlagTheModelKeepsItsTerms) {
  ComputeModel m;
  m.pass_overhead_ms = 0.3;  // --measure-compute's
  m.comm_sm_slowdown = 0.2;
  EXPECT_TRUE(use_pass_costs(std::nullopt, {}, m).empty());
  EXPECT_DOUBLE_EQ(m.pass_overhead_ms, 0.3);
  EXPECT_DOUBLE_EQ(m.comm_sm_slowdown, 0.2);
}

// GEMMs that waited for NCCL's kernels (one hardware queue) give no SM share: 0, and the source says why.
TEST(PassCostTerms, GemmsThatWaitedForNcclGiveNoSlowdownAndSaySo) {
  ComputeModel m;
  m.comm_sm_slowdown = 0.3;
  const auto sources = use_pass_costs(recorded(10, 1000, 2000), {}, m);
  EXPECT_EQ(m.comm_sm_slowdown, 0);
  ASSERT_EQ(sources.size(), 2u);
  EXPECT_NE(sources[1].find("comm-sm-slowdown (0.000, "), std::string::npos) << sources[1];
  EXPECT_NE(sources[1].find("; the GEMMs waited for NCCL's kernels)"), std::string::npos) << sources[1];
}

}  // namespace
}  // namespace pipebench
