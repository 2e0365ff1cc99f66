// SPDX-License-Identifier: Apache-2.0
// The bus of a GPU model by its name: PCIe boards and NVLink modules, whole words only (an A10 is no A100,
// an L4 no L40S), nothing for a name that does not tell.
#include "topology/gpu_model_bus.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(GpuModelBus, PcieBoardsAndNvlinkModulesByName) {
  const auto rtx = bus_of_gpu_model("NVIDIA GeForce RTX 3090", false);
  ASSERT_TRUE(rtx.has_value());
  EXPECT_EQ(rtx->label, "PCIe Gen4 x16");
  EXPECT_NEAR(rtx->gbps, 31.51, 0.01);
  // The path between the GPUs is unknown: from no P2P (through host memory) to P2P.
  EXPECT_NEAR(rtx->low_fraction * rtx->gbps, 11.97, 0.01);
  EXPECT_NEAR(rtx->high_fraction * rtx->gbps, 27.41, 0.01);
  const auto sxm = bus_of_gpu_model("NVIDIA A100-SXM4-80GB", false);
  ASSERT_TRUE(sxm.has_value());
  EXPECT_EQ(sxm->label, "NVLink x12");
  EXPECT_DOUBLE_EQ(sxm->gbps, 300);
  const auto h100 = bus_of_gpu_model("NVIDIA H100 80GB HBM3", true);
  ASSERT_TRUE(h100.has_value());
  EXPECT_DOUBLE_EQ(h100->gbps, 450);
  EXPECT_DOUBLE_EQ(h100->high_fraction, 1.07);  // NVSwitch reduces all_reduce in the fabric
  EXPECT_EQ(bus_of_gpu_model("NVIDIA H100 PCIe", false)->label, "PCIe Gen5 x16");
  EXPECT_EQ(bus_of_gpu_model("NVIDIA A100 80GB PCIe", false)->label, "PCIe Gen4 x16");
  EXPECT_EQ(bus_of_gpu_model("Tesla V100-PCIE-16GB", false)->label, "PCIe Gen3 x16");
}

TEST(GpuModelBus, WholeWordsAndAmbiguousNames) {
  EXPECT_EQ(bus_of_gpu_model("NVIDIA A10", false)->label, "PCIe Gen4 x16");
  EXPECT_EQ(bus_of_gpu_model("NVIDIA L4", false)->label, "PCIe Gen4 x16");
  EXPECT_EQ(bus_of_gpu_model("nvidia geforce rtx 3090", false)->label, "PCIe Gen4 x16");
  EXPECT_FALSE(bus_of_gpu_model("NVIDIA H100", false).has_value());  // SXM or PCIe: the name does not say
  EXPECT_FALSE(bus_of_gpu_model("NVIDIA A1000", false).has_value());
  EXPECT_FALSE(bus_of_gpu_model("", false).has_value());
  EXPECT_FALSE(bus_of_gpu_model("host memory", false).has_value());
}

}  // namespace
}  // namespace pipebench
