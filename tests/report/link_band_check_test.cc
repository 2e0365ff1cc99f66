// SPDX-License-Identifier: Apache-2.0
// The report's link band check: judged points, the slow pair named, nothing without a known link.
#include "report/link_band_check.h"

#include <gtest/gtest.h>

#include "report/report_fixture.h"

namespace pipebench {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

InputFile<ResultSet> host_with(double busbw_gbps, const std::string& link_class) {
  InputFile<ResultSet> in = testing::make_host("node7", 400);
  in.doc.records.clear();
  for (std::uint64_t size : {std::uint64_t{1} << 20, kGiB}) {
    ResultRecord r = testing::make_record("all_gather", size, busbw_gbps);
    r.link_class = link_class;
    r.path_min_gbps = 450.0;
    in.doc.records.push_back(r);
  }
  return in;
}

TEST(LinkBandCheck, SlowPairIsNamedWithItsGpus) {
  ReportInputs in;
  in.results = {host_with(200, "NV18")};
  const auto o = link_band_outcome(in);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->name, "busbw-in-link-band");
  EXPECT_EQ(o->status, Status::kWarn);
  EXPECT_EQ(o->checked, 1U);  // 1 MiB is below the band's size
  ASSERT_EQ(o->points.size(), 1U);
  const std::string& note = o->points.front().note;
  EXPECT_NE(note.find("200.00 GB/s at 1G is 44.4 % of NV18's 450.00 GB/s; normal for NV18 at >= 1 GiB: 338-382"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("host node7 ranks 0,1 (0000:10:00.0, 0000:11:00.0)"), std::string::npos) << note;
  EXPECT_EQ(o->message, "1 of 1 points at >= 1 GiB below the published band of their link class");
}

TEST(LinkBandCheck, InTheBandPasses) {
  ReportInputs in;
  in.results = {host_with(370, "NV18")};
  const auto o = link_band_outcome(in);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->status, Status::kPass);
}

TEST(LinkBandCheck, NothingWithoutAClassOrLink) {
  ReportInputs in;
  in.results = {host_with(200, "")};  // host ranks: no class
  EXPECT_FALSE(link_band_outcome(in));
  in.results = {host_with(200, "NET")};  // no published band
  EXPECT_FALSE(link_band_outcome(in));
  in.results = {host_with(200, "NV18")};
  for (auto& r : in.results[0].doc.records) r.path_min_gbps.reset();
  EXPECT_FALSE(link_band_outcome(in));  // no link and no topology
}

}  // namespace
}  // namespace pipebench
