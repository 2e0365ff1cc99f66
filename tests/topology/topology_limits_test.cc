// SPDX-License-Identifier: Apache-2.0
// A topology above the limit (4096 GPUs) is refused in one line once read, before any table of GPU pairs
// exists; one at the limit is classified, one byte per pair. The files are generated in /tmp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.h"
#include "topology/discovery.h"
#include "topology/nccl_xml.h"

namespace pipebench {
namespace {

// NCCL topology XML: two CPUs, GPUs as PCI class 0x0302 in pairs under PCIe switches.
std::string write_nccl_xml(std::size_t gpus) {
  const std::string path =
      "/tmp/pipebench_topo_limits_" + std::to_string(getpid()) + "_" + std::to_string(gpus) + ".xml";
  std::ofstream out(path);
  out << "<system version=\"1\">\n";
  for (int cpu = 0; cpu < 2; ++cpu) {
    out << " <cpu numaid=\"" << cpu << "\" arch=\"x86_64\" vendor=\"GenuineIntel\">\n";
    for (std::size_t g = cpu; g < gpus; g += 4) {
      char sw[32], a[32], b[32];
      std::snprintf(sw, sizeof sw, "%04zx:ff:00.0", g);
      std::snprintf(a, sizeof a, "%04zx:01:00.0", g);
      std::snprintf(b, sizeof b, "%04zx:01:00.0", g + 2);
      out << "  <pci busid=\"" << sw << "\" class=\"0x060400\" link_speed=\"16 GT/s\" link_width=\"16\">\n"
          << "   <pci busid=\"" << a << "\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>\n";
      if (g + 2 < gpus)
        out << "   <pci busid=\"" << b << "\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>\n";
      out << "  </pci>\n";
    }
    out << " </cpu>\n";
  }
  out << "</system>\n";
  return path;
}

// --nccl-xml is read with tinyxml2, an optional library: without it these tests skip, saying why.
constexpr const char* kNoTinyxml2 = "built without tinyxml2 (--nccl-xml left out; install libtinyxml2-dev)";

TEST(TopologyLimits, MoreGpusThanTheLimitAreRefusedInOneLineBeforeAnyPairTable) {
  if (!built_with_xml_parser()) GTEST_SKIP() << kNoTinyxml2;
  const std::string path = write_nccl_xml(kMaxTopologyGpus + 1);
  DiscoveryOptions o;
  o.nccl_xml = path;
  try {
    (void)discover_topology(o);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--nccl-xml " + path + ": 4097 GPUs, above the limit of 4096 in one topology");
  }
  std::remove(path.c_str());
}

TEST(TopologyLimits, ATopologyAtTheLimitIsClassifiedInOneBytePerPair) {
  if (!built_with_xml_parser()) GTEST_SKIP() << kNoTinyxml2;
  const std::string path = write_nccl_xml(kMaxTopologyGpus);
  DiscoveryOptions o;
  o.nccl_xml = path;
  const TopologyView v = discover_topology(o);
  ASSERT_EQ(v.topology.gpus.size(), kMaxTopologyGpus);
  ASSERT_EQ(v.gpu_classes.rows(), kMaxTopologyGpus);
  ASSERT_EQ(v.gpu_classes.cols(), kMaxTopologyGpus);
  static_assert(sizeof(PathClass) == 1, "one byte per pair");
  // File order (no <gpu> children): the first CPU's GPUs, then the second's.
  EXPECT_EQ(v.gpu_pair(0, 1).label(), "PIX");                     // one switch
  EXPECT_EQ(v.gpu_pair(0, 2).label(), "PHB");                     // the same CPU, another switch
  EXPECT_EQ(v.gpu_pair(0, kMaxTopologyGpus / 2).label(), "SYS");  // across the CPUs
  EXPECT_EQ(v.gpu_pair(kMaxTopologyGpus - 1, kMaxTopologyGpus - 2).label(), "PIX");
  EXPECT_EQ(v.gpu_pair(5, 5).label(), "X");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace pipebench
