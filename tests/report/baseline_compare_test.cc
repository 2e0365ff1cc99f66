// SPDX-License-Identifier: Apache-2.0
#include "report/baseline_compare.h"

#include <gtest/gtest.h>

#include "report/report_fixture.h"

namespace pipebench {
namespace {

using testing::make_record;

InputFile<ResultSet> one_point(const std::string& host, double busbw, double stddev_share) {
  InputFile<ResultSet> in = testing::make_host(host, 100);
  in.doc.records = {make_record("all_reduce", 1 << 20, busbw, stddev_share)};
  return in;
}

const Metric& busbw() { return *find_metric("busbw_gbps"); }

TEST(BaselineCompare, SpreadIsTheRelativeStddev) {
  const auto r = make_record("all_reduce", 1 << 20, 100, 0.04);
  EXPECT_NEAR(metric_spread(100, r), 4.0, 1e-9);
  ResultRecord none;
  EXPECT_EQ(metric_spread(100, none), 0);
}

TEST(BaselineCompare, ChangeBeyondPercentAndSpreadIsWorse) {
  const auto c = compare_to_baseline({one_point("new", 90, 0.01)}, {one_point("old", 100, 0.01)}, busbw(), 5);
  ASSERT_EQ(c.size(), 1u);  // one host each side: matched without the host name
  EXPECT_NEAR(c[0].ratio, 0.9, 1e-9);
  EXPECT_TRUE(c[0].changed);
  EXPECT_TRUE(c[0].worse);
}

TEST(BaselineCompare, ChangeWithinTheRunsSpreadDoesNotCount) {
  // 10% lower, beyond 5%, but each run's spread is 8% of its value: 7.2 + 8 > 10.
  const auto c = compare_to_baseline({one_point("a", 90, 0.08)}, {one_point("a", 100, 0.08)}, busbw(), 5);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].changed);
  EXPECT_FALSE(c[0].worse);
}

TEST(BaselineCompare, ChangeWithinThePercentDoesNotCount) {
  const auto c = compare_to_baseline({one_point("a", 97, 0.001)}, {one_point("a", 100, 0.001)}, busbw(), 5);
  EXPECT_FALSE(c.at(0).changed);
}

TEST(BaselineCompare, BetterIsChangedButNotWorse) {
  const auto c = compare_to_baseline({one_point("a", 120, 0.01)}, {one_point("a", 100, 0.01)}, busbw(), 5);
  EXPECT_TRUE(c.at(0).changed);
  EXPECT_FALSE(c.at(0).worse);
  // For a time, higher is worse.
  const auto t =
      compare_to_baseline({one_point("a", 80, 0.01)}, {one_point("a", 100, 0.01)}, *find_metric("time_us"), 5);
  EXPECT_TRUE(t.at(0).worse);
}

TEST(BaselineCompare, PointsOnOneSideAreListed) {
  InputFile<ResultSet> now = one_point("a", 100, 0.01), old = one_point("a", 100, 0.01);
  now.doc.records.push_back(make_record("all_reduce", 1 << 21, 120));
  old.doc.records.push_back(make_record("all_gather", 1 << 20, 50));
  const auto c = compare_to_baseline({now}, {old}, busbw(), 5);
  ASSERT_EQ(c.size(), 3u);
  int only_new = 0, only_old = 0;
  for (const auto& p : c) {
    only_new += p.new_value && !p.old_value;
    only_old += !p.new_value && p.old_value;
  }
  EXPECT_EQ(only_new, 1);
  EXPECT_EQ(only_old, 1);
}

TEST(BaselineCompare, SeveralHostsMatchByHost) {
  const auto c = compare_to_baseline({one_point("a", 100, 0.01), one_point("b", 50, 0.01)},
                                     {one_point("a", 100, 0.01), one_point("b", 100, 0.01)}, busbw(), 5);
  ASSERT_EQ(c.size(), 2u);
  for (const auto& p : c) EXPECT_EQ(p.worse, p.host == "b") << p.key;
}

}  // namespace
}  // namespace pipebench
