// SPDX-License-Identifier: Apache-2.0
// Topology problems, each named, from hwloc and NCCL XML files made here.
#include "topology/topology_checks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "topology/discovery.h"
#include "topology/hwloc_discovery.h"
#include "topology/nccl_xml.h"

namespace pipebench {
namespace {

std::string fixture(const std::string& name) { return std::string(TEST_DATA_DIR) + "/topology/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/pipebench_checks_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The warnings that contain `part`.
int count_with(const std::vector<std::string>& warnings, const std::string& part) {
  int n = 0;
  for (const auto& w : warnings) n += w.find(part) != std::string::npos;
  return n;
}

std::string all(const std::vector<std::string>& warnings) {
  std::string s;
  for (const auto& w : warnings) s += w + "\n";
  return s;
}

TopologyView hwloc_text(const std::string& name, const std::string& text) {
  DiscoveryOptions o;
  o.hwloc_xml = write(name, text);
  TopologyView v = discover_topology(o);
  std::remove(o.hwloc_xml.c_str());
  return v;
}

TopologyView nccl_text(const std::string& name, const std::string& text) {
  DiscoveryOptions o;
  o.nccl_xml = write(name, text);
  TopologyView v = discover_topology(o);
  std::remove(o.nccl_xml.c_str());
  return v;
}

const std::string kTwoSwitch = fixture("pipebench-two-switch-levels.xml");

TEST(TopologyChecks, WidthsAndBusIds) {
  for (int w : {1, 2, 4, 8, 12, 16, 32}) EXPECT_TRUE(is_pcie_width(w)) << w;
  for (long long w : {0LL, 3LL, 64LL, 99999999999LL, -16LL}) EXPECT_FALSE(is_pcie_width(w)) << w;
  EXPECT_TRUE(is_normalized_bus_id("0000:18:00.0"));
  EXPECT_FALSE(is_normalized_bus_id("zz:07"));
  EXPECT_FALSE(is_normalized_bus_id("0000:18:00.0x"));
}

TEST(TopologyChecks, HwlocGpuWithoutBusIdDuplicateBusIdsAndNaNOrAbsurdLinkSpeeds) {
  if (!built_with_hwloc()) GTEST_SKIP() << "built without hwloc";
  const std::string xml = slurp(kTwoSwitch);
  auto v = hwloc_text("nobus.xml", replaced(xml, "gp_index=\"31\" pci_busid=\"0000:07:00.0\"", "gp_index=\"31\""));
  EXPECT_EQ(count_with(v.warnings, "has no PCI bus id (read as 0000:00:00.0)"), 1) << all(v.warnings);

  v = hwloc_text("dup.xml", replaced(xml, "gp_index=\"52\" pci_busid=\"0000:41:00.0\"",
                                     "gp_index=\"52\" pci_busid=\"0000:07:00.0\""));
  EXPECT_EQ(count_with(v.warnings, "share the PCI bus id 0000:07:00.0"), 1) << all(v.warnings);

  v = hwloc_text("nan.xml", replaced(xml, "a1\" pci_link_speed=\"4.000000\"", "a1\" pci_link_speed=\"nan\""));
  EXPECT_EQ(count_with(v.warnings, "the PCIe link above 0000:41:00.0 reads nan GB/s, not a PCIe link speed"), 1)
      << all(v.warnings);
  for (std::size_t i = 0; i < v.gpu_count(); ++i) {
    for (std::size_t j = 0; j < v.gpu_count(); ++j) EXPECT_TRUE(std::isfinite(v.gpu_pair(i, j).path_min_gbps));
  }

  v = hwloc_text("absurd.xml", replaced(xml, "pci_link_speed=\"15.753846\"", "pci_link_speed=\"1200000000\""));
  EXPECT_EQ(count_with(v.warnings, "reads 1.2e+09 GB/s, not a PCIe link speed (at most 512): ignored"), 1)
      << all(v.warnings);
  for (const auto& n : v.topology.nodes) EXPECT_LE(n.link_gbps, kMaxPcieLinkGbps);
}

TEST(TopologyChecks, HwlocGpuWithABadBusIdIsNotDroppedInSilence) {
  if (!built_with_hwloc() || !built_with_xml_parser()) GTEST_SKIP() << "built without hwloc or tinyxml2";
  const auto v =
      hwloc_text("badbus.xml", replaced(slurp(kTwoSwitch), "pci_busid=\"0000:07:00.0\"", "pci_busid=\"zz:07\""));
  EXPECT_EQ(count_with(v.warnings, "has a malformed pci_busid \"zz:07\"; hwloc drops such a device"), 1)
      << all(v.warnings);
}

// Found by the hwloc XML fuzz target: hwloc 2.9 crashed (SIGSEGV) on an object without complete_cpuset.
TEST(TopologyChecks, AnHwlocObjectWithACpusetButNoCompleteCpusetIsBadInputNotACrash) {
  if (!built_with_hwloc() || !built_with_xml_parser()) GTEST_SKIP() << "built without hwloc or tinyxml2";
  DiscoveryOptions o;
  o.hwloc_xml =
      write("nocomplete.xml", replaced(slurp(kTwoSwitch), "cpuset=\"0x00000020\" complete_cpuset=\"0x00000020\"",
                                       "cpuset=\"0x00000020\" other=\"0x00000020\""));
  std::string error = "(no error)";
  try {
    (void)discover_topology(o);
  } catch (const UsageError& e) {
    error = e.what();
  }
  std::remove(o.hwloc_xml.c_str());
  EXPECT_NE(error.find("has a cpuset but no complete_cpuset (not an hwloc export, or damaged)"), std::string::npos)
      << error;
}

// <topology> is found past any leading comment, however long: a valid file is read.
TEST(TopologyChecks, AValidHwlocExportWithA50MegabyteLeadingCommentIsRead) {
  if (!built_with_hwloc()) GTEST_SKIP() << "built without hwloc";
  const std::string xml = slurp(kTwoSwitch);
  const std::size_t body = xml.find("<!DOCTYPE");
  ASSERT_NE(body, std::string::npos);
  const std::string text = xml.substr(0, body) + "<!--" + std::string(50u << 20, 'x') + "-->\n" + xml.substr(body);
  const auto v = hwloc_text("comment.xml", text);
  EXPECT_EQ(v.topology.gpus.size(), 3u);
  EXPECT_EQ(v.topology.nics.size(), 1u);
}

TEST(TopologyChecks, NcclAbsurdWidthsNaNSpeedsAndMissingOrBadBusIdsAreWarnedAndTheGpuKept) {
  if (!built_with_xml_parser()) GTEST_SKIP() << "built without tinyxml2";
  const auto v =
      nccl_text("bad.xml",
                "<system version=\"1\"><cpu numaid=\"0\" affinity=\"ff\" vendor=\"GenuineIntel\">"
                "<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"99999999999\"/>"
                "<pci busid=\"0000:02:00.0\" class=\"0x030200\" link_speed=\"nan GT/s\" link_width=\"16\"/>"
                "<pci busid=\"0000:02:00.0\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>"
                "<pci class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>"
                "<pci busid=\"not-a-bus\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>"
                "</cpu></system>");
  ASSERT_EQ(v.topology.gpus.size(), 5u);  // every GPU kept
  EXPECT_EQ(count_with(v.warnings, "link_width \"99999999999\" of 0000:01:00.0 is not a PCIe width: ignored"), 1)
      << all(v.warnings);
  EXPECT_EQ(count_with(v.warnings, "link_speed \"nan GT/s\" of 0000:02:00.0 is not a PCIe speed: ignored"), 1)
      << all(v.warnings);
  EXPECT_EQ(count_with(v.warnings, "share the PCI bus id 0000:02:00.0"), 1) << all(v.warnings);
  EXPECT_EQ(count_with(v.warnings, "GPU 3 has no PCI bus id"), 1) << all(v.warnings);
  EXPECT_EQ(count_with(v.warnings, "GPU 4 has a malformed PCI bus id 'not-a-bus': kept"), 1) << all(v.warnings);
  for (const auto& n : v.topology.nodes) {
    EXPECT_LE(n.link_gbps, kMaxPcieLinkGbps);
    EXPECT_TRUE(n.link_width == 0 || is_pcie_width(n.link_width)) << n.link_width;
  }
  EXPECT_EQ(v.topology.nodes[static_cast<std::size_t>(v.topology.gpus[0].node)].link_gbps, 0);  // unknown
}

}  // namespace
}  // namespace pipebench
