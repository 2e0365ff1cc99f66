// SPDX-License-Identifier: Apache-2.0
#include "trace/nvtx_sweep.h"

#include <gtest/gtest.h>

#include <vector>

namespace pipebench {
namespace {

struct Closed {
  std::string text;
  int depth;
  std::vector<RangeOnDevice> devices;
  std::string dtype;
};

TEST(NvtxSweep, InnermostRangeAndProjectionPerDevice) {
  std::vector<Closed> closed;
  NvtxSweep s([&](const ClosedRange& c) {
    closed.push_back({c.range.text, c.depth, c.devices, c.nccl_dtype ? c.nccl_dtype->name : ""});
  });
  s.range({1, 0, 100, "step"});
  s.range({1, 10, 40, "forward"});
  const SweepRange* r = s.launch(1, 20, {0, 7, 1000, 1100, false, {}});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->text, "forward");
  r = s.launch(1, 50, {1, 7, 1200, 1300, true, TraceDType{"float", 4}});  // forward has ended
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->text, "step");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].text, "forward");
  EXPECT_EQ(closed[0].depth, 1);
  ASSERT_EQ(closed[0].devices.size(), 1u);
  EXPECT_EQ(closed[0].devices[0].first_start_ns, 1000);
  EXPECT_EQ(closed[0].devices[0].last_end_ns, 1100);
  EXPECT_EQ(s.launch(1, 150, {0, 7, 1400, 1500, false, {}}), nullptr);  // outside every range
  ASSERT_EQ(closed.size(), 2u);
  EXPECT_EQ(closed[1].text, "step");
  EXPECT_EQ(closed[1].depth, 0);
  ASSERT_EQ(closed[1].devices.size(), 2u);  // kernels of nested ranges count for the parent
  EXPECT_EQ(closed[1].devices[0].kernels, 1);
  EXPECT_EQ(closed[1].devices[1].comm_kernels, 1);
  EXPECT_EQ(closed[1].dtype, "float");
  // Another thread closes what is open; ranges with no kernel close too.
  s.range({1, 200, 300, "tail"});
  s.range({2, 0, 10, "other"});
  EXPECT_EQ(closed.size(), 3u);
  EXPECT_TRUE(closed[2].devices.empty());
  r = s.launch(2, 5, {0, 1, 0, 1, false, {}});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->text, "other");
  s.finish();
  EXPECT_EQ(closed.size(), 4u);
}

TEST(NvtxSweep, LaunchAtTheEdgesOfARangeIsInsideIt) {
  NvtxSweep s([](const ClosedRange&) {});
  s.range({1, 10, 20, "r"});
  EXPECT_NE(s.launch(1, 10, {0, 0, 0, 1, false, {}}), nullptr);
  EXPECT_NE(s.launch(1, 20, {0, 0, 0, 1, false, {}}), nullptr);
  EXPECT_EQ(s.launch(1, 21, {0, 0, 0, 1, false, {}}), nullptr);
}

}  // namespace
}  // namespace pipebench
