// SPDX-License-Identifier: Apache-2.0
#include "harness/watchdog.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(PointTimeout, DefaultsToTenTimesTheTimeAtOneGigabytePerSecondAndNeverUnderTwoMinutes) {
  EXPECT_DOUBLE_EQ(default_point_timeout_s(8, 206), 120);  // 2 s of latency: the floor
  // 1 GiB, 206 operations: 206 x (1 ms + 1.0737 s) x 10.
  EXPECT_NEAR(default_point_timeout_s(1ull << 30, 206), 10 * 206 * (1e-3 + 1.073741824), 1e-6);
  EXPECT_GT(default_point_timeout_s(1ull << 30, 2000), default_point_timeout_s(1ull << 30, 206));
  EXPECT_DOUBLE_EQ(default_point_timeout_s(1ull << 30, 0), default_point_timeout_s(1ull << 30, 1));
}

TEST(PointTimeout, AGivenTimeoutWinsAndZeroTurnsItOff) {
  EXPECT_DOUBLE_EQ(point_timeout_s(0, 1ull << 30, 206), 0);
  EXPECT_DOUBLE_EQ(point_timeout_s(5, 1ull << 30, 206), 5);
  EXPECT_DOUBLE_EQ(point_timeout_s(-1, 1ull << 30, 206), default_point_timeout_s(1ull << 30, 206));
}

}  // namespace
}  // namespace pipebench
