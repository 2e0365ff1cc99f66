// SPDX-License-Identifier: Apache-2.0
#include "core/range_list.h"

#include <gtest/gtest.h>

#include <limits>

namespace pipebench {
namespace {

TEST(RangeList, RunsAreRanges) {
  EXPECT_EQ(range_list_text({}), "");
  EXPECT_EQ(range_list_text({4}), "4");
  EXPECT_EQ(range_list_text({2, 3}), "2, 3");
  EXPECT_EQ(range_list_text({2, 3, 4, 5, 7, 9, 10, 11, 12}), "2-5, 7, 9-12");
}

// 2^24 ranks missing are one range, not a 156 MB line.
TEST(RangeList, AWholeWorldIsOneRange) {
  RangeList list;
  for (std::int64_t n = 2; n < (std::int64_t{1} << 24); ++n) list.add(n);
  EXPECT_EQ(list.text(), "2-16777215");
  EXPECT_EQ(list.count(), 16777214);
}

// Every other number: the first kShownRanges, then the count; the text stays short however many there are.
TEST(RangeList, ManyRangesShowTheFirstAndTheCount) {
  RangeList list;
  for (std::int64_t n = 0; n < 2'000'000; n += 2) list.add(n);
  EXPECT_EQ(list.text(), "0, 2, 4, 6, 8, 10, 12, 14, ... (1000000 in all)");
  RangeList exact;
  for (std::int64_t n = 0; n < 2 * static_cast<std::int64_t>(kShownRanges); n += 2) exact.add(n);
  EXPECT_EQ(exact.text(), "0, 2, 4, 6, 8, 10, 12, 14");
}

TEST(RangeList, NumbersOutOfOrderAreIgnored) {
  RangeList list;
  list.add(5);
  list.add(3);
  list.add(5);
  list.add(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(list.text(), "5, 9223372036854775807");
  EXPECT_EQ(list.count(), 2);
}

}  // namespace
}  // namespace pipebench
