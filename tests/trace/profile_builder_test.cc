// SPDX-License-Identifier: Apache-2.0
#include "trace/profile_builder.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(IntervalUnion, OverlapsCountOnce) {
  IntervalUnion u;
  u.add(0, 10);
  u.add(5, 20);   // overlaps
  u.add(20, 25);  // touches
  u.add(30, 31);
  u.add(30, 40);  // same start, longer
  EXPECT_EQ(u.total(), 25 + 10);
  EXPECT_THROW(u.add(29, 50), std::logic_error);
  EXPECT_EQ(IntervalUnion{}.total(), 0);
}

TEST(ProfileBuilder, RowsByTotalTimeAndRangesCountAsCommOnlyWhenAllTheirKernelsAre) {
  ProfileBuilder b;
  b.timeline(1, 100, 200, false);
  b.timeline(1, 150, 300, true);
  b.row(1, 7, "gemm", 100, false, false);
  b.row(1, 9, "nccl", 150, true, false);
  b.row(1, 9, "nccl", 50, true, false);
  b.row(1, 7, "layer", 10, true, true);
  b.row(1, 7, "layer", 30, false, true);
  b.collective(1, CollectiveRow{"all_reduce", 10, "float", 4, 1, 2, "nvtx"});
  b.collective(1, CollectiveRow{"all_reduce", 10, "float", 4, 1, 2, "nvtx"});
  b.collective(1, CollectiveRow{"all_gather", 10, "", 0, 1, -1, "nvtx"});
  b.device_name(1, "GPU");
  const auto devices = b.finish();
  ASSERT_EQ(devices.size(), 1u);
  const auto& d = devices[0];
  EXPECT_EQ(d.name, "GPU");
  EXPECT_EQ(d.span_ns(), 200);
  EXPECT_EQ(d.busy_ns, 200);
  EXPECT_EQ(d.comm_ns, 150);
  ASSERT_EQ(d.rows.size(), 3u);
  EXPECT_EQ(d.rows[0].name, "nccl");
  EXPECT_EQ(d.rows[0].count, 2);
  EXPECT_EQ(d.rows[0].min_ns, 50);
  EXPECT_EQ(d.rows[0].max_ns, 150);
  EXPECT_EQ(d.rows[1].name, "gemm");
  EXPECT_EQ(d.rows[2].name, "layer");
  EXPECT_FALSE(d.rows[2].comm);
  ASSERT_EQ(d.collectives.size(), 2u);
  EXPECT_EQ(d.collectives[0].op, "all_gather");
  EXPECT_EQ(d.collectives[1].count, 2);
  EXPECT_EQ(d.collectives[1].bytes().value(), 40);
  EXPECT_FALSE(d.collectives[0].bytes());
}

}  // namespace
}  // namespace pipebench
