// SPDX-License-Identifier: Apache-2.0
#include "core/stats.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(Summarize, OddCountMedianIsTheMiddleValue) {
  const Stats s = summarize({5, 1, 3});
  EXPECT_EQ(s.samples, 3u);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.median_us, 3);
  EXPECT_DOUBLE_EQ(s.mean_us, 3);
  EXPECT_DOUBLE_EQ(s.max_us, 5);
  EXPECT_NEAR(s.stddev_us, 1.632993, 1e-6);  // population: sqrt(8/3)
}

TEST(Summarize, EvenCountMedianAveragesTheMiddlePair) { EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median_us, 2.5); }

TEST(Summarize, P95IsNearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(summarize(v).p95_us, 19);  // ceil(0.95 * 20) = 19th smallest
  EXPECT_DOUBLE_EQ(summarize({7}).p95_us, 7);
}

TEST(Summarize, EmptyInputIsAllZero) {
  const Stats s = summarize({});
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.max_us, 0);
}

// median is summarize's median alone, whatever the order of the values; 0 for none.
TEST(Median, IsSummarizesMedianInAnyOrder) {
  EXPECT_EQ(median({}), 0);
  for (const std::vector<double>& v :
       {std::vector<double>{7}, {4, 1, 3, 2}, {5, 9, 1, 3, 3}, {2.5, -1, 8, 8, 0.1, 3}, {1e300, -1e300}})
    EXPECT_EQ(median(v), summarize(v).median_us);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({9, 1, 5}), 5);
}

}  // namespace
}  // namespace pipebench
