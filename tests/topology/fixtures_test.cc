// SPDX-License-Identifier: Apache-2.0
// The whole GPU pair matrix of every topology fixture (expected values: tests/fixtures/topology/README.md).
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "topology/discovery.h"
#include "topology/hwloc_discovery.h"
#include "topology/nccl_xml.h"

namespace pipebench {
namespace {

std::string fixture(const std::string& name) { return std::string(TEST_DATA_DIR) + "/topology/" + name; }

TopologyView load_hwloc(const std::string& name) {
  DiscoveryOptions o;
  o.hwloc_xml = fixture(name);
  return discover_topology(o);
}

TopologyView load_nccl(const std::string& name) {
  DiscoveryOptions o;
  o.nccl_xml = fixture(name);
  return discover_topology(o);
}

// Rows of the GPU matrix, cells separated by one space: {"X PIX", "PIX X"}.
std::vector<std::string> gpu_matrix(const TopologyView& v) {
  const std::size_t n = v.topology.gpus.size();
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < n; ++i) {
    std::string row;
    for (std::size_t j = 0; j < n; ++j) row += (j ? " " : "") + v.gpu_pair(i, j).label();
    rows.push_back(row);
  }
  return rows;
}

std::string nic_cell(const TopologyView& v, int gpu, const std::string& nic) {
  for (std::size_t k = 0; k < v.nic_count(); ++k) {
    if (v.topology.nics[k].name == nic) return v.nic_pair(static_cast<std::size_t>(gpu), k).label();
  }
  return "(no such NIC)";
}

TEST(TopologyFixtures, Power8NvLinkPairsAndCrossSocketSys) {
  const auto v = load_hwloc("hwloc-power8gpudistances.xml");
  EXPECT_EQ(gpu_matrix(v),
            (std::vector<std::string>{"X NV2 SYS SYS", "NV2 X SYS SYS", "SYS SYS X NV2", "SYS SYS NV2 X"}));
  const PairInfo p01 = v.gpu_pair(0, 1);
  EXPECT_EQ(p01.pcie_cls, PathClass::kNode);  // separate host bridges, one socket
  EXPECT_DOUBLE_EQ(p01.path_min_gbps, 40.0);  // 2 NVLink 1.0 links of 20 GB/s (P100)
  EXPECT_TRUE(p01.p2p);
  EXPECT_FALSE(v.gpu_pair(0, 2).p2p);  // SYS
  EXPECT_EQ(v.topology.gpus[0].model, "Tesla P100-SXM2-16GB");
  EXPECT_TRUE(v.topology.nvlink_known);
}

TEST(TopologyFixtures, Sl390sSlowLinksAndPhbPair) {
  const auto v = load_hwloc("hwloc-24em64t-2n6c2t-pci.xml");
  EXPECT_EQ(gpu_matrix(v), (std::vector<std::string>{"X SYS SYS", "SYS X PHB", "SYS PHB X"}));
  EXPECT_EQ(v.topology.gpus[1].bus_id, "0000:11:00.0");  // bus order, as nvidia-smi numbers them
  EXPECT_EQ(v.topology.gpus[2].bus_id, "0000:14:00.0");
  int slow = 0;
  for (const auto& w : v.warnings)
    slow += w.find("4.0 GB/s per direction, the speed of Gen1 x16 or Gen2 x8") != std::string::npos;
  EXPECT_EQ(slow, 3) << "every M2070 link reads 4.0 GB/s";
  EXPECT_EQ(nic_cell(v, 0, "mlx4_0"), "PHB");
}

TEST(TopologyFixtures, G4dnMetalPhbNodeSysAndTheEfaNicOnSocketOne) {
  const auto v = load_hwloc("mpibind-g4dnmetal.xml");
  EXPECT_EQ(gpu_matrix(v),
            (std::vector<std::string>{"X PHB NODE NODE SYS SYS SYS SYS", "PHB X NODE NODE SYS SYS SYS SYS",
                                      "NODE NODE X PHB SYS SYS SYS SYS", "NODE NODE PHB X SYS SYS SYS SYS",
                                      "SYS SYS SYS SYS X PHB NODE NODE", "SYS SYS SYS SYS PHB X NODE NODE",
                                      "SYS SYS SYS SYS NODE NODE X PHB", "SYS SYS SYS SYS NODE NODE PHB X"}));
  for (int g = 0; g < 4; ++g) EXPECT_EQ(nic_cell(v, g, "rdmap197s0"), "SYS");
  for (int g = 4; g < 8; ++g) EXPECT_EQ(nic_cell(v, g, "rdmap197s0"), "NODE");
  EXPECT_NEAR(v.gpu_pair(0, 1).path_min_gbps, 15.75, 0.01);  // Gen3 x16 T4s
}

// The common-ancestor pitfall: GPUs and the HCA sit at different PCIe depths below one switch.
TEST(TopologyFixtures, PascalPixBehindOneSwitchIncludingTheHca) {
  const auto v = load_hwloc("mpibind-cts1-pascal.xml");
  EXPECT_EQ(gpu_matrix(v), (std::vector<std::string>{"X PIX", "PIX X"}));
  EXPECT_EQ(nic_cell(v, 0, "mlx5_0"), "PIX");
  EXPECT_EQ(nic_cell(v, 1, "mlx5_0"), "PIX");
}

TEST(TopologyFixtures, LassenPixPairsAndNodeLocalHcas) {
  const auto v = load_hwloc("mpibind-coral-lassen.xml");
  EXPECT_EQ(gpu_matrix(v),
            (std::vector<std::string>{"X PIX SYS SYS", "PIX X SYS SYS", "SYS SYS X PIX", "SYS SYS PIX X"}));
  EXPECT_EQ(nic_cell(v, 0, "mlx5_0"), "NODE");
  EXPECT_EQ(nic_cell(v, 1, "mlx5_1"), "NODE");
  EXPECT_EQ(v.topology.gpus[2].numa, 8);  // NUMA os_index 8 on POWER9
  EXPECT_FALSE(v.topology.nvlink_known);  // no NVLinkBandwidth matrix in this export
}

TEST(TopologyFixtures, TwoSwitchLevelsArePxbAndAGen1LinkIsWarnedAbout) {
  const auto v = load_hwloc("pipebench-two-switch-levels.xml");
  EXPECT_EQ(gpu_matrix(v), (std::vector<std::string>{"X PXB NODE", "PXB X NODE", "NODE NODE X"}));
  EXPECT_EQ(nic_cell(v, 1, "mlx5_0"), "PIX");
  EXPECT_EQ(nic_cell(v, 0, "mlx5_0"), "PXB");  // GPU two levels deeper than the HCA: no crash, right class
  EXPECT_DOUBLE_EQ(v.gpu_pair(0, 2).path_min_gbps, 4.0);
  bool gen1 = false;
  for (const auto& w : v.warnings) gen1 = gen1 || w.find("GPU 2 (0000:41:00.0): PCIe link runs at 4.0 GB/s") == 0;
  EXPECT_TRUE(gen1);
  bool no_p2p = false;
  for (const auto& w : v.warnings) no_p2p = no_p2p || w.find("GPU 1 and GPU 2 (neighbouring pipeline stages") == 0;
  EXPECT_TRUE(no_p2p);
}

// Exported on the GPU machine with `pipebench topo --export-xml` (one H200 in a VM, virtio devices).
TEST(TopologyFixtures, H200VmExportedByPipebench) {
  const auto v = load_hwloc("pipebench-h200-vm.xml");
  ASSERT_EQ(v.topology.gpus.size(), 1u);
  EXPECT_EQ(gpu_matrix(v), std::vector<std::string>{"X"});
  EXPECT_EQ(v.topology.gpus[0].bus_id, "0000:00:06.0");
  EXPECT_NEAR(v.topology.nodes[static_cast<std::size_t>(v.topology.gpus[0].node)].link_gbps, 63.02, 0.01);  // Gen5 x16
  EXPECT_EQ(v.topology.gpus[0].cpuset, "0-15");
  ASSERT_EQ(v.topology.nics.size(), 1u);
  EXPECT_EQ(v.topology.nics[0].name, "eth0");
  EXPECT_FALSE(v.topology.nics[0].rdma);  // virtio: no GPUDirect RDMA warning for it
  EXPECT_EQ(nic_cell(v, 0, "eth0"), "PHB");
  EXPECT_TRUE(v.warnings.empty()) << v.warnings[0];
}

TEST(TopologyFixtures, NcclP4dSwitchesNicsAndSockets) {
  if (!built_with_xml_parser()) GTEST_SKIP() << "built without tinyxml2";
  const auto v = load_nccl("nccl-aws-p4d-24xl-topo.xml");
  EXPECT_EQ(v.topology.gpus.size(), 8u);
  EXPECT_EQ(v.topology.nics.size(), 4u);
  EXPECT_EQ(gpu_matrix(v)[0], "X PIX PHB PHB SYS SYS SYS SYS");
  EXPECT_EQ(gpu_matrix(v)[5], "SYS SYS SYS SYS PIX X PHB PHB");
  EXPECT_EQ(v.nic_pair(0, 0).label(), "PIX");                // GPU0 - the EFA NIC on its switch
  EXPECT_NEAR(v.gpu_pair(0, 1).path_min_gbps, 15.75, 0.01);  // "8 GT/s" x16
  EXPECT_EQ(v.topology.cpu_vendor, "GenuineIntel");
}

TEST(TopologyFixtures, NcclAzureNcv4OneGpuPerNumaNodeAndAVirtualNic) {
  if (!built_with_xml_parser()) GTEST_SKIP() << "built without tinyxml2";
  const auto v = load_nccl("nccl-azure-ncv4-topo.xml");
  EXPECT_EQ(gpu_matrix(v),
            (std::vector<std::string>{"X SYS SYS SYS", "SYS X SYS SYS", "SYS SYS X SYS", "SYS SYS SYS X"}));
  ASSERT_EQ(v.topology.nics.size(), 1u);
  EXPECT_EQ(v.topology.nics[0].name, "eth0");
  EXPECT_EQ(v.topology.nics[0].numa, 0);
  EXPECT_EQ(v.topology.gpus[3].cpuset, "72-95");
  // AMD with more than 2 GPUs: NCCL's P2P cut-off stays PXB.
  EXPECT_FALSE(v.gpu_pair(0, 1).p2p);
  bool self_link_note = false;
  for (const auto& n : v.topology.notes)
    self_link_note = self_link_note || n.find("pointing at itself") != std::string::npos;
  EXPECT_TRUE(self_link_note);
}

// GPUs that name no vendor and have no <gpu> child are found by their PCI class, never "no GPU found".
TEST(TopologyFixtures, NcclPciClassGpusWithoutGpuChildInFileOrderWithClassesFromTheTree) {
  if (!built_with_xml_parser()) GTEST_SKIP() << "built without tinyxml2";
  const auto v = load_nccl("nccl-azure-nd-pci-class-topo.xml");
  ASSERT_EQ(v.topology.gpus.size(), 4u);
  EXPECT_EQ(v.topology.gpus[2].bus_id, "000b:00:00.0");  // file order, not bus order
  EXPECT_EQ(v.topology.gpus[3].bus_id, "0003:00:00.0");
  EXPECT_EQ(gpu_matrix(v),
            (std::vector<std::string>{"X PHB SYS SYS", "PHB X SYS SYS", "SYS SYS X PHB", "SYS SYS PHB X"}));
  ASSERT_EQ(v.topology.nics.size(), 4u);
  EXPECT_EQ(nic_cell(v, 0, "0101:00:00.0"), "PIX");  // its own switch
  EXPECT_EQ(nic_cell(v, 0, "0102:00:00.0"), "PHB");
  EXPECT_EQ(nic_cell(v, 3, "0106:00:00.0"), "PIX");
  EXPECT_EQ(nic_cell(v, 3, "0101:00:00.0"), "SYS");
  const auto& nodes = v.topology.nodes;
  EXPECT_NEAR(nodes[static_cast<std::size_t>(v.topology.gpus[0].node)].link_gbps, 31.5, 0.1);  // 16 GT/s x16
  EXPECT_EQ(nodes[static_cast<std::size_t>(v.topology.gpus[3].node)].link_gen, 3);             // 8 GT/s
  EXPECT_EQ(nodes[static_cast<std::size_t>(v.topology.gpus[3].node)].link_width, 8);
  EXPECT_NEAR(nodes[static_cast<std::size_t>(v.topology.gpus[3].node)].link_gbps, 7.88, 0.01);
  EXPECT_EQ(v.topology.gpus[0].numa, 0);
  EXPECT_EQ(v.topology.gpus[2].numa, 1);
}

class TopologyBadInput : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/pipebench_topo_" + std::to_string(getpid()) + "_" + name;
    std::ofstream(path) << text;
    return path;
  }
  static std::string error_of(const DiscoveryOptions& o) {
    try {
      (void)discover_topology(o);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(TopologyBadInput, MissingEmptyTruncatedAndForeignFilesAreNamed) {
  DiscoveryOptions o;
  o.hwloc_xml = "/nonexistent/topo.xml";
  EXPECT_EQ(error_of(o), "--xml /nonexistent/topo.xml: no such file");
  o.hwloc_xml = write("empty.xml", "");
  EXPECT_NE(error_of(o).find(": the file is empty"), std::string::npos);
  std::ifstream in(fixture("mpibind-cts1-pascal.xml"));
  std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  o.hwloc_xml = write("truncated.xml", whole.substr(0, whole.size() / 2));
  EXPECT_EQ(error_of(o), "--xml " + o.hwloc_xml + ": hwloc could not read it (truncated, or not an hwloc export?)");
  o.hwloc_xml = fixture("nccl-azure-ncv4-topo.xml");
  EXPECT_NE(error_of(o).find("not an hwloc XML export (it looks like NCCL's topology format: use --nccl-xml)"),
            std::string::npos);
}

TEST_F(TopologyBadInput, AnExportWithoutIoDevicesSaysSo) {
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology "
      "version=\"2.0\">\n"
      "  <object type=\"Machine\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
      "allowed_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
      "allowed_nodeset=\"0x00000001\" "
      "gp_index=\"1\">\n    <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000001\" "
      "complete_cpuset=\"0x00000001\" "
      "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\"/>\n    <object type=\"PU\" os_index=\"0\" "
      "cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
      "gp_index=\"3\"/>\n  </object>\n</topology>\n";
  DiscoveryOptions o;
  o.hwloc_xml = write("noio.xml", xml);
  EXPECT_NE(error_of(o).find("no PCI devices in this export: it was made without I/O devices"), std::string::npos)
      << error_of(o);
}

TEST_F(TopologyBadInput, NcclXmlProblems) {
  if (!built_with_xml_parser()) GTEST_SKIP() << "built without tinyxml2";
  DiscoveryOptions o;
  o.nccl_xml = write("trunc_nccl.xml", "<system version=\"1\">\n  <cpu numaid=\"0\">\n");
  EXPECT_NE(error_of(o).find("not well-formed XML"), std::string::npos) << error_of(o);
  o.nccl_xml = fixture("mpibind-cts1-pascal.xml");
  EXPECT_NE(error_of(o).find("not an NCCL topology file (the root element is <topology>"), std::string::npos)
      << error_of(o);
  o.nccl_xml =
      write("unknown_tag.xml",
            "<system version=\"1\"><cpu numaid=\"0\" affinity=\"ff\" vendor=\"GenuineIntel\">"
            "<gadget id=\"1\"/><pci busid=\"0000:01:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" "
            "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/></cpu></system>");
  const TopologyView v = discover_topology(o);
  ASSERT_EQ(v.topology.gpus.size(), 1u);  // kept going after the unknown tag
  EXPECT_NEAR(v.topology.nodes[static_cast<std::size_t>(v.topology.gpus[0].node)].link_gbps, 63.0, 0.1);
  bool noted = false;
  for (const auto& n : v.topology.notes)
    noted = noted || n.find("unknown tag <gadget> at line 1 skipped") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(TopologyBadInput, NoGpuShowsTheCpuNicViewAndSaysSo) {
  std::ifstream in(fixture("pipebench-two-switch-levels.xml"));
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t at; (at = xml.find("0302 [10de")) != std::string::npos;) xml.replace(at, 10, "0108 [144d");
  DiscoveryOptions o;
  o.hwloc_xml = write("nogpu.xml", xml);
  const TopologyView v = discover_topology(o);
  EXPECT_TRUE(v.topology.gpus.empty());
  EXPECT_EQ(v.topology.nics.size(), 1u);
  EXPECT_EQ(v.warnings, std::vector<std::string>{"no GPU found: showing the CPU/NIC view only"});
}

}  // namespace
}  // namespace pipebench
