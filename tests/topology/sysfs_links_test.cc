// SPDX-License-Identifier: Apache-2.0
// The live link-state path on a fake sysfs tree: a GPU trained at Gen1 x16 under a Gen4 x16 slot.
#include "topology/sysfs_links.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "topology/link_health.h"
#include "topology/pair_classifier.h"

namespace pipebench {
namespace {

void put(const std::string& dir, const std::string& file, const std::string& text) {
  mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/" + file) << text << "\n";
}

TEST(SysfsLinks, ReadsGenerationAndWidthAndWarnsWhenBelowMax) {
  const std::string root = "/tmp/pipebench_sysfs_" + std::to_string(getpid());
  mkdir(root.c_str(), 0755);
  const std::string gpu = root + "/0000:18:00.0";
  put(gpu, "current_link_speed", "2.5 GT/s PCIe");
  put(gpu, "current_link_width", "16");
  put(gpu, "max_link_speed", "16.0 GT/s PCIe");
  put(gpu, "max_link_width", "16");
  Topology t;
  t.nodes.push_back({});  // the machine
  TopoNode n;
  n.kind = NodeKind::kDevice;
  n.parent = 0;
  n.bus_id = "0000:18:00.0";
  t.nodes.push_back(n);
  Gpu g;
  g.node = 1;
  g.bus_id = n.bus_id;
  g.model = "NVIDIA RTX 3090";
  t.gpus.push_back(g);
  EXPECT_EQ(read_sysfs_links(t, root), 1);
  EXPECT_EQ(t.nodes[1].link_gen, 1);
  EXPECT_EQ(t.nodes[1].link_gen_max, 4);
  EXPECT_DOUBLE_EQ(t.nodes[1].link_gbps, 4.0);
  TopologyView v;
  v.topology = t;
  v.under_load = true;
  v.tree = PcieTree(v.topology);
  v.gpu_classes = classify_gpu_pairs(v.topology, v.tree);
  v.nic_classes = classify_gpu_nic_pairs(v.topology, v.tree);
  const auto warnings = link_warnings(v);
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(
      warnings[0],
      "GPU 0 (0000:18:00.0): PCIe link runs at Gen1 x16, its maximum is Gen4 x16 (4.0 of 31.5 GB/s per direction)");
  EXPECT_EQ(std::system(("rm -rf " + root).c_str()), 0);
}

}  // namespace
}  // namespace pipebench
