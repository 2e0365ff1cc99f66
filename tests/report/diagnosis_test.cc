// SPDX-License-Identifier: Apache-2.0
#include "report/diagnosis.h"

#include <gtest/gtest.h>

#include "report/report_fixture.h"

namespace pipebench {
namespace {

using testing::make_host;

auto all = [](const ResultRecord&) { return true; };

TEST(Diagnosis, FlagsTheSlowHostOnly) {
  std::vector<InputFile<ResultSet>> hosts;
  const double peaks[] = {100, 101, 99, 100.5, 60};
  for (int i = 0; i < 5; ++i) hosts.push_back(make_host("node" + std::to_string(i), peaks[i]));
  const auto findings = mad_outliers(hosts, *find_metric("busbw_gbps"), 3.0, all);
  ASSERT_EQ(findings.size(), 5u * hosts[0].doc.records.size());
  const auto rows = diagnose_hosts(findings);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].host, "node4");  // flagged first
  EXPECT_EQ(rows[0].outliers, hosts[4].doc.records.size());
  EXPECT_GT(rows[0].worst_mads, 3.0);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i].outliers, 0u) << rows[i].host;
}

TEST(Diagnosis, KDecides) {
  std::vector<InputFile<ResultSet>> hosts;
  const double peaks[] = {100, 102, 98, 101, 90};  // node4: 10.5 below the peers' median 100.5, their MAD 1
  for (int i = 0; i < 5; ++i) hosts.push_back(make_host("node" + std::to_string(i), peaks[i]));
  auto largest = [](const ResultRecord& r) { return r.size_bytes == (1u << 20); };
  const auto strict = mad_outliers(hosts, *find_metric("busbw_gbps"), 3.0, largest);
  const auto loose = mad_outliers(hosts, *find_metric("busbw_gbps"), 12.0, largest);
  auto flagged = [](const std::vector<MadFinding>& f) {
    std::vector<std::string> out;
    for (const auto& x : f) {
      if (x.outlier) out.push_back(x.member);
    }
    return out;
  };
  EXPECT_EQ(flagged(strict), std::vector<std::string>{"node4"});
  EXPECT_TRUE(flagged(loose).empty());
}

TEST(Diagnosis, IdenticalPeersDoNotTurnNoiseIntoOutliers) {
  std::vector<InputFile<ResultSet>> hosts;
  const double peaks[] = {100, 100, 100, 99.8};
  for (int i = 0; i < 4; ++i) hosts.push_back(make_host("n" + std::to_string(i), peaks[i]));
  for (const auto& f : mad_outliers(hosts, *find_metric("busbw_gbps"), 3.0, all)) EXPECT_FALSE(f.outlier) << f.member;
}

TEST(Diagnosis, LowerIsBetterMetricsFlagTheHighSide) {
  std::vector<InputFile<ResultSet>> hosts;
  const double peaks[] = {100, 100, 101, 99, 130};  // node4 is faster: lower time, not an outlier
  for (int i = 0; i < 5; ++i) hosts.push_back(make_host("node" + std::to_string(i), peaks[i]));
  for (const auto& f : mad_outliers(hosts, *find_metric("time_us"), 3.0, all)) EXPECT_FALSE(f.outlier) << f.member;
  const auto bw = mad_outliers(hosts, *find_metric("busbw_gbps"), 3.0, all);
  for (const auto& f : bw) EXPECT_FALSE(f.outlier) << f.member;  // higher bandwidth is not bad either
}

TEST(Diagnosis, NeedsThreeMembers) {
  std::vector<InputFile<ResultSet>> hosts = {make_host("a", 100), make_host("b", 10)};
  EXPECT_TRUE(mad_outliers(hosts, *find_metric("busbw_gbps"), 3.0, all).empty());
}

TEST(Diagnosis, PairsOfOneHostAreMembers) {
  InputFile<ResultSet> in = make_host("box", 100);
  in.doc.records.clear();
  const double gbps[] = {40, 41, 39, 40.5, 12};
  for (int p = 0; p < 5; ++p) {
    auto r = testing::make_record("pair", 1 << 20, gbps[p]);
    r.pairs = {{0, p + 1}};
    r.ranks = {0, p + 1};
    in.doc.records.push_back(r);
  }
  const auto f = mad_outliers({in}, *find_metric("busbw_gbps"), 3.0, all);
  ASSERT_EQ(f.size(), 5u);
  for (const auto& x : f) EXPECT_EQ(x.outlier, x.member == "box 0->5") << x.member;
}

}  // namespace
}  // namespace pipebench
