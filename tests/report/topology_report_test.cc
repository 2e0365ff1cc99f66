// SPDX-License-Identifier: Apache-2.0
// The topology writers at scale: the streamed JSON equals the one-tree JSON, lists pairs only up to
// kMaxListedPairGpus GPUs and otherwise holds one row of labels per GPU, which the reader turns back into
// the same classes, links and narrowest links; the text report streams its matrix and leaves out the
// pair list above that size. The hwloc XML is generated in /tmp.
#include "report/topology_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/topology_io.h"
#include "topology/big_hwloc_xml.h"
#include "topology/discovery.h"

namespace pipebench {
namespace {

TopologyView big_view(std::size_t gpus, bool nvlink) {
  const std::string path = "/tmp/pipebench_topo_report_" + std::to_string(getpid()) + ".xml";
  testing::write_big_hwloc_xml(path, gpus, nvlink);
  DiscoveryOptions o;
  o.hwloc_xml = path;
  TopologyView v = discover_topology(o);
  std::remove(path.c_str());
  return v;
}

TEST(TopologyReport, StreamedJsonOfManyGpusIsAMatrixThatReadsBackAsTheSamePairs) {
  if (!PB_HAVE_HWLOC) GTEST_SKIP() << "this build has no hwloc";
  const std::size_t n = 96;  // above kMaxListedPairGpus, so no pair list
  const TopologyView v = big_view(n, true);
  ASSERT_EQ(v.gpu_count(), n);
  std::ostringstream out;
  write_topology_json(out, v);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j, topology_to_json(v));
  EXPECT_TRUE(j["pairs"].empty());
  ASSERT_EQ(j["pair_matrix"]["gpu_gpu"].size(), n);
  ASSERT_EQ(j["pair_matrix"]["gpu_nic"].size(), n);
  const std::string row0 = j["pair_matrix"]["gpu_gpu"][0];
  EXPECT_EQ(row0.substr(0, 17), "X NV18 NV18 NV18 ");  // GPUs 0-7: one NVLink group
  EXPECT_EQ(j["pair_matrix"]["p2p"][0].get<std::string>().substr(0, 10), "0111111100");

  const TopologyFile t = topology_from_json(j, "big.json");
  ASSERT_EQ(t.gpu_pairs.size(), n * (n - 1));
  for (const auto& p : t.gpu_pairs) {
    const PairInfo want = v.gpu_pair(static_cast<std::size_t>(p.a), static_cast<std::size_t>(p.b));
    ASSERT_EQ(p.cls.label(), want.label()) << p.a << "-" << p.b;
    ASSERT_EQ(p.path, want.path) << p.a << "-" << p.b;
    ASSERT_DOUBLE_EQ(p.path_min_gbps, want.path_min_gbps) << p.a << "-" << p.b;
  }
  // A PCIe pair under two host bridges of one package: from GPU 0 up to the package, down to GPU 16.
  const PairInfo far = v.gpu_pair(0, 16);
  EXPECT_EQ(far.label(), "NODE");
  EXPECT_EQ(far.path.front(), "up:pcie:0000:11:00.0");
  EXPECT_NE(std::find(far.path.begin(), far.path.end(), "down:pcie:0002:11:00.0"), far.path.end());
}

TEST(TopologyReport, SmallTopologiesKeepThePairListBesideTheMatrix) {
  if (!PB_HAVE_HWLOC) GTEST_SKIP() << "this build has no hwloc";
  const TopologyView v = big_view(16, false);
  const nlohmann::json j = topology_to_json(v);
  // 16 x 15 GPU pairs and 16 x 2 GPU-NIC pairs (a NIC under each of the two host bridges).
  EXPECT_EQ(j["pairs"].size(), 16u * 15u + 16u * 2u);
  // GPUs 8-15 sit on the other package.
  EXPECT_EQ(j["pair_matrix"]["gpu_gpu"][0], "X PIX PHB PHB PHB PHB PHB PHB SYS SYS SYS SYS SYS SYS SYS SYS");
  nlohmann::json old = j;
  old.erase("pair_matrix");
  EXPECT_EQ(topology_from_json(old, "old.json").gpu_pairs.size(), topology_from_json(j, "new.json").gpu_pairs.size());
}

TEST(TopologyReport, TextOfManyGpusHasTheMatrixAndNoPairList) {
  if (!PB_HAVE_HWLOC) GTEST_SKIP() << "this build has no hwloc";
  const TopologyView v = big_view(96, false);
  std::ostringstream out;
  print_topology_text(out, v);
  const std::string s = out.str();
  EXPECT_NE(s.find("\nGPU95   "), std::string::npos);
  EXPECT_NE(s.find("(4560 pairs: listed up to 64 GPUs"), std::string::npos);
  EXPECT_EQ(s.find("GPU0-GPU1 "), std::string::npos);
}

TEST(TopologyReport, AFileAboveTheReadBackLimitIsRefusedInOneLine) {
  nlohmann::json j = {{"schema", kTopologySchema}, {"host", "h"}, {"pairs", nlohmann::json::array()}};
  for (std::size_t i = 0; i <= kMaxTopologyFileGpus; ++i) j["gpus"].push_back({{"index", i}, {"bus_id", "1:00.0"}});
  try {
    (void)topology_from_json(j, "--topology big.json");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--topology big.json: \"gpus\" has 257 GPUs, above the limit of 256 for a topology read back");
  }
  j["gpus"].erase(j["gpus"].size() - 1);
  EXPECT_EQ(topology_from_json(j, "t").gpus.size(), kMaxTopologyFileGpus);
}

}  // namespace
}  // namespace pipebench
