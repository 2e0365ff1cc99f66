// SPDX-License-Identifier: Apache-2.0
#include "io/input_views.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(InputViews, TheHostOfAResultsFileFallsBackToItsTopologyThenItsFolder) {
  InputFile<ResultSet> in{"/runs/node9/results.json", {}};
  EXPECT_EQ(host_of(in), "node9");  // no hosts, no devices, no topology: its folder
  in.doc.system.topology = TopologyFile{};
  in.doc.system.topology->host = "topo-host";
  EXPECT_EQ(host_of(in), "topo-host");
  in.doc.system.devices = {
      {{1, "b", "0000:0b:00.0"}, 0, 0, ""}, {{0, "a", ""}, 0, -1, ""}, {{1, "c", "0000:0c:00.0"}, 0, 1, ""}};
  EXPECT_EQ(host_of(in), "b");
  EXPECT_EQ(hosts_of(in.doc), (std::vector<std::string>{"b", "a", "c"}));
  in.doc.system.hosts = {"a"};
  EXPECT_EQ(hosts_of(in.doc), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_NE(device_of_rank(in.doc, 1), nullptr);
  EXPECT_EQ(device_of_rank(in.doc, 1)->host, "c");  // the last device naming the rank
  EXPECT_EQ(device_of_rank(in.doc, 2), nullptr);
  EXPECT_EQ(device_of_rank(in.doc, -1), nullptr);
}

TEST(InputViews, AGpusLinksOverTheRunMergeItsSnapshotsAndSamples) {
  ResultSet rs;
  rs.system.link_start = {{3, "0000:3a:00.0", 1, 16, 4, 16, 12, 0}, {1, "", 4, 16, 4, 16, 12, 0}};
  rs.system.link_end = {{3, "", 2, 8, 5, 16, 11, 1}};
  rs.link_during_run = {{3, "", 4, 16, 0, 0, -1, -1}};
  EXPECT_EQ(link_state_gpus(rs), (std::vector<int>{1, 3}));
  const LinkStateEntry gpu3 = link_over_run(rs, 3);
  EXPECT_EQ(gpu3.bus_id, "0000:3a:00.0");
  EXPECT_EQ(gpu3.pcie_gen, 4);  // sampled while it ran, not the idle snapshots
  EXPECT_EQ(gpu3.pcie_width, 16);
  EXPECT_EQ(gpu3.pcie_gen_max, 5);  // the highest maximum of any entry
  EXPECT_EQ(gpu3.nvlinks_up, 11);   // at the end
  EXPECT_EQ(gpu3.nvlinks_down, 1);
  const LinkStateEntry gpu1 = link_over_run(rs, 1);
  EXPECT_EQ(gpu1.pcie_gen, 4);     // no samples: the better snapshot
  EXPECT_EQ(gpu1.nvlinks_up, -1);  // no end snapshot: unknown
  EXPECT_EQ(link_entry(rs.system.link_end, 1).gpu, -1);
  EXPECT_TRUE(link_state_gpus(ResultSet{}).empty());
}

TEST(InputViews, TopologyGpusByIndexAndBusId) {
  TopologyFile t;
  TopologyGpu g;
  g.index = 2, g.bus_id = "0000:1b:00.0", g.pcie_gen = 4, g.pcie_gen_max = 5;
  t.gpus.push_back(g);
  g.index = 0, g.bus_id = "0000:1a:00.0", g.pcie_gen = 0, g.pcie_gen_max = 0;
  t.gpus.push_back(g);
  g.index = 5000, g.bus_id = "0000:1c:00.0";  // beyond the indices shown
  t.gpus.push_back(g);
  EXPECT_EQ(gpu_count(t), 3u);
  EXPECT_EQ(gpu_of_bus(t, "0000:1b:00.0"), 2);
  EXPECT_FALSE(gpu_of_bus(t, "0000:1c:00.0"));
  const auto links = links_at_discovery(t);
  ASSERT_EQ(links.size(), 1u);  // GPU 0's link is unknown
  EXPECT_EQ(links[0].gpu, 2);
  EXPECT_EQ(links[0].pcie_gen_max, 5);
  EXPECT_EQ(links[0].nvlinks_up, -1);
}

}  // namespace
}  // namespace pipebench
