// SPDX-License-Identifier: Apache-2.0
// The start/end link snapshot of a run: one row per GPU, unknown values left unknown rather than guessed.
#include "topology/link_sampler.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(LinkSnapshot, OneRowPerGpuWithUnknownsLeftUnknown) {
  Topology t;
  t.nodes.push_back({});  // the machine
  TopoNode n;
  n.kind = NodeKind::kDevice;
  n.parent = 0;
  n.bus_id = "0000:fe:1f.7";  // on no machine's PCI bus: neither sysfs nor NVML knows it
  n.link_gen = 4;             // what discovery saw is not carried over: the snapshot reads anew
  t.nodes.push_back(n);
  Gpu g;
  g.index = 3;
  g.node = 1;
  g.bus_id = n.bus_id;
  g.nvlinks_up = 12;
  t.gpus.push_back(g);
  const std::vector<LinkStateEntry> rows = link_snapshot(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].gpu, 3);
  EXPECT_EQ(rows[0].bus_id, "0000:fe:1f.7");
  EXPECT_EQ(rows[0].nvlinks_up, -1);  // unknown, written as null
  EXPECT_EQ(rows[0].nvlinks_down, -1);
  EXPECT_EQ(rows[0].pcie_gen, 0);  // discovery's Gen4 is no reading of now
  EXPECT_EQ(rows[0].pcie_width_max, 0);
  EXPECT_TRUE(link_snapshot(Topology{}).empty());
}

}  // namespace
}  // namespace pipebench
