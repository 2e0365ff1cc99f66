// SPDX-License-Identifier: Apache-2.0
#include "topology/link_bandwidth.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(PcieGbps, MatchesTheSpecTable) {
  EXPECT_DOUBLE_EQ(pcie_gbps(1, 16), 4.0);
  EXPECT_DOUBLE_EQ(pcie_gbps(2, 8), 4.0);
  EXPECT_NEAR(pcie_gbps(3, 16), 15.75, 0.01);
  EXPECT_NEAR(pcie_gbps(4, 16), 31.51, 0.01);
  EXPECT_NEAR(pcie_gbps(5, 16), 63.02, 0.01);
  EXPECT_NEAR(pcie_gbps(6, 16), 121.0, 0.01);
  EXPECT_EQ(pcie_gbps(0, 16), 0);
  EXPECT_EQ(pcie_gbps(4, 0), 0);
}

TEST(PcieGenFromSpeed, ReadsOldAndNewKernelStrings) {
  EXPECT_EQ(pcie_gen_from_speed("2.5 GT/s"), 1);
  EXPECT_EQ(pcie_gen_from_speed("5 GT/s"), 2);
  EXPECT_EQ(pcie_gen_from_speed("8 GT/s"), 3);
  EXPECT_EQ(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_gen_from_speed("Unknown"), 0);
  EXPECT_EQ(pcie_gen_from_speed(""), 0);
}

TEST(NvLinkPerLink, ByModelAndByNvmlVersion) {
  EXPECT_EQ(nvlink_gbps_per_link("NVIDIA H200"), 25);
  EXPECT_EQ(nvlink_gbps_per_link("Tesla P100-SXM2-16GB"), 20);
  EXPECT_EQ(nvlink_gbps_per_link("NVIDIA B200"), 50);
  EXPECT_EQ(nvlink_gbps_per_link("Tesla T4"), 0);
  EXPECT_EQ(nvlink_gbps_for_nvml_version(6), 25);  // NVML enum 6 = NVLink 4.0 (H100/H200)
  EXPECT_EQ(nvlink_gbps_for_nvml_version(7), 50);
}

}  // namespace
}  // namespace pipebench
