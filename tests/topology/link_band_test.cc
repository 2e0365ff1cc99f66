// SPDX-License-Identifier: Apache-2.0
// Published bands per link class: which classes have one, the share of the link, the size threshold.
#include "topology/link_band.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pipebench {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(LinkBand, ClassesWithAndWithoutAPublishedBand) {
  ASSERT_TRUE(link_band("NV18", false));
  EXPECT_EQ(link_band("NV18", false)->kind, "NVLink");
  // NVLink SHARP lets an op NVSwitch reduces (all_reduce) pass the line rate (nccl-tests#212: ~480 of 450
  // GB/s); other ops do not.
  EXPECT_GT(link_band("NV18", true)->high_fraction, 1.0);
  EXPECT_LT(link_band("NV18", false)->high_fraction, 1.0);
  EXPECT_EQ(link_band("PIX", true)->kind, "PCIe P2P");
  EXPECT_EQ(link_band("PXB", true)->kind, "PCIe P2P");
  for (const char* cls : {"PHB", "NODE", "SYS"}) EXPECT_EQ(link_band(cls, true)->kind, "no P2P (through host memory)");
  for (const char* cls : {"X", "NET", "", "NV", "FOO"}) EXPECT_FALSE(link_band(cls, true)) << cls;
  // Through host memory reaches less of the link than P2P, which reaches less than NVLink's upper end.
  EXPECT_LT(link_band("SYS", false)->high_fraction, link_band("PIX", false)->low_fraction);
}

TEST(LinkBand, H100PairAtOneGiB) {
  // 18 NVLink4 links x 25 GB/s = 450 GB/s; 370 GB/s is the published ring figure (nccl-tests#212).
  const auto ok = check_band("NV18", false, 450.0, 370.0, kGiB);
  ASSERT_TRUE(ok);
  EXPECT_NEAR(ok->pct_of_link, 82.2, 0.1);
  EXPECT_NEAR(ok->low_gbps, 337.5, 1e-9);
  EXPECT_NEAR(ok->high_gbps, 382.5, 1e-9);
  EXPECT_TRUE(ok->judged);
  EXPECT_FALSE(ok->below);
  EXPECT_EQ(ok->band_text.rfind("normal for NV18 at >= 1 GiB: 338-382 GB/s (NVLink; NVIDIA/nccl-tests#149", 0), 0U)
      << ok->band_text;
  const auto slow = check_band("NV18", false, 450.0, 200.0, kGiB);
  EXPECT_TRUE(slow->below);
}

TEST(LinkBand, ShareOfTheLinkOnlyWhereTheLinkIsKnown) {
  EXPECT_DOUBLE_EQ(*pct_of_link(360, 450.0), 80.0);
  EXPECT_DOUBLE_EQ(*pct_of_link(0, 450.0), 0.0);  // a known link and nothing moved is 0 %
  EXPECT_FALSE(pct_of_link(10, std::nullopt));
  EXPECT_FALSE(pct_of_link(10, 0.0));
  EXPECT_FALSE(pct_of_link(10, std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(pct_of_link(std::nan(""), 450.0));
  EXPECT_FALSE(pct_of_link(-1, 450.0));
}

TEST(LinkBand, PcieBandKeepsADecimalAndSmallSizesAreNotJudged) {
  // Gen3 x16 = 15.75 GB/s; through host memory 0.38-0.57 of it (nccl#406: 6-9 GB/s).
  const auto sys = check_band("SYS", true, 15.75, 3.0, kGiB);
  ASSERT_TRUE(sys);
  EXPECT_TRUE(sys->below);
  EXPECT_NE(sys->band_text.find("6.0-9.0 GB/s"), std::string::npos) << sys->band_text;
  const auto small = check_band("SYS", true, 15.75, 3.0, kGiB - 1);
  EXPECT_FALSE(small->judged);
  EXPECT_FALSE(small->below);
  EXPECT_NEAR(small->pct_of_link, 100 * 3.0 / 15.75, 1e-9);
}

TEST(LinkBand, UnknownLinkOrValueGivesNoCheck) {
  EXPECT_FALSE(check_band("NV18", true, std::nullopt, 100, kGiB));
  EXPECT_FALSE(check_band("NV18", true, 0.0, 100, kGiB));
  EXPECT_FALSE(check_band("NV18", true, 450.0, std::numeric_limits<double>::quiet_NaN(), kGiB));
  EXPECT_FALSE(check_band("NV18", true, 450.0, -1, kGiB));
  // A known link without a band (NET, X) still gives the share of the link.
  const auto net = check_band("NET", true, 50.0, 40.0, kGiB);
  ASSERT_TRUE(net);
  EXPECT_NEAR(net->pct_of_link, 80, 1e-9);
  EXPECT_FALSE(net->judged);
  EXPECT_TRUE(net->band_text.empty());
}

}  // namespace
}  // namespace pipebench
