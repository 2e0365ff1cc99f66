// SPDX-License-Identifier: Apache-2.0
#include "launch/gpu_assignment.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(PickDevice, ProcessesSeeingAllGpusTakeConsecutiveBlocks) {
  EXPECT_EQ(pick_device(0, 1, 8, 3, 8, "n"), 3);
  EXPECT_EQ(pick_device(1, 2, 8, 2, 4, "n"), 5);
  EXPECT_EQ(pick_device(0, 8, 8, 0, 1, "n"), 0);
}

TEST(PickDevice, ProcessesSeeingOnlyTheirOwnGpuUseIt) {
  // CUDA_VISIBLE_DEVICES per rank: rank 5 of 8 sees one GPU, index 0 (no "invalid device ordinal").
  EXPECT_EQ(pick_device(0, 1, 1, 5, 8, "n"), 0);
  EXPECT_EQ(pick_device(1, 2, 2, 3, 4, "n"), 1);
}

TEST(PickDevice, TooManyGpusIsBadInputWithTheNumbers) {
  try {
    (void)pick_device(0, 2, 1, 0, 1, "node7");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-g 2: only 1 GPU is visible on host node7");
  }
  EXPECT_THROW((void)pick_device(0, 1, 3, 0, 4, "n"), LocalUsageError);  // 4 ranks, 3 shared GPUs
}

}  // namespace
}  // namespace pipebench
