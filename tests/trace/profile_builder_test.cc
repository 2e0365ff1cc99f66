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

TEST(ProfileBuilder, TemporalBreakdownUnionsMemoryAndCommMarks) {
  ProfileBuilder b;
  // Device 0: compute [0,100), NCCL [50,150), memcpy [140,170) and [200,210): active = [0,170) + [200,210).
  b.timeline(0, 0, 100, false);
  b.active(0, 0, 100);
  b.timeline(0, 50, 150, true);
  b.active(0, 50, 150);
  b.comm_mark(0, "ncclDevKernel_AllReduce", 50, 150);
  b.memory(0, 4096, false);
  b.active(0, 140, 170);
  b.memory(0, 64, true);
  b.active(0, 200, 210);
  b.memory(5, 1, false);  // memcpy on a device without kernels: not a device of the profile
  b.active(5, 0, 10);
  for (int i = 0; i < 20; ++i) b.comm_mark(0, "ncclDevKernel_AllReduce", 1000 + i, 1001 + i);
  const auto devices = b.finish();
  ASSERT_EQ(devices.size(), 1u);
  const DeviceProfile& d = devices[0];
  EXPECT_EQ(d.compute_ns, 100);
  EXPECT_EQ(d.comm_ns, 100);
  EXPECT_EQ(d.busy_ns, 150);
  EXPECT_EQ(d.active_ns, 180);
  EXPECT_EQ(d.active_first_ns, 0);
  EXPECT_EQ(d.active_last_ns, 210);
  EXPECT_EQ(d.span_ns(), 150);  // kernels only, as the one-profile report has always shown it
  EXPECT_EQ(d.memcpy_count, 1);
  EXPECT_EQ(d.memset_count, 1);
  EXPECT_EQ(d.memcpy_bytes, 4096);
  EXPECT_EQ(d.memset_bytes, 64);
  ASSERT_EQ(d.comm_marks.at("ncclDevKernel_AllReduce").size(), kMaxCommMarks);  // the first runs only
  EXPECT_EQ(d.comm_marks.at("ncclDevKernel_AllReduce")[0], std::make_pair(std::int64_t{50}, std::int64_t{150}));
}

}  // namespace
}  // namespace pipebench
