// SPDX-License-Identifier: Apache-2.0
#include "io/nccl_tests_row_order.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pipebench {
namespace {

// The first problem of rows of float/sum/-1 with these sizes, then the footer's; "" when none.
std::string order_of(const std::vector<std::uint64_t>& sizes, bool footer = true) {
  NcclTestsRowOrder order;
  for (const auto s : sizes) {
    if (std::string why = order.add("float", "sum", -1, s); !why.empty()) return why;
  }
  return footer ? order.footer() : "";
}

TEST(NcclTestsRowOrder, RisingSizesAndWholeRepeatsAreOneRun) {
  EXPECT_EQ(order_of({8, 32, 128, 512}), "");
  // A step below the type's size prints a size again (8, 9, 10 bytes of floats are 8).
  EXPECT_EQ(order_of({8, 8, 8, 12, 12}), "");
  // -N 3: the sizes again, whole, before the footer.
  EXPECT_EQ(order_of({8, 32, 128, 8, 32, 128, 8, 32, 128}), "");
  EXPECT_EQ(order_of({8, 8, 12, 8, 8, 12}), "");
}

TEST(NcclTestsRowOrder, RowsOfAnotherRunInsertedAreNot) {
  // all_reduce 8..512, then a sendrecv run's 8..2K, then all_reduce on from 2K.
  EXPECT_EQ(order_of({8, 32, 128, 512, 8, 32, 128, 512, 2048, 2048, 8192}),
            "size 2048 in the rows of float sum root -1, whose sizes have ended: only a repeat (-N) of them may "
            "follow, from 8");
  EXPECT_EQ(order_of({8, 32, 128, 8, 64}), "size 64 in the rows of float sum root -1, where their repeat (-N) has 32");
  EXPECT_EQ(order_of({8, 32, 128, 32}),
            "size 32 in the rows of float sum root -1, whose sizes have ended: only a repeat (-N) of them may follow, "
            "from 8");
  // The first rows again after the last, then the footer.
  EXPECT_EQ(order_of({8, 32, 128, 512, 8, 32}),
            "the footer after 2 of the 4 sizes of a repeat (-N) of the rows of float sum root -1");
  // Without a footer (a run cut short) a repeat may end anywhere.
  EXPECT_EQ(order_of({8, 32, 128, 512, 8, 32}, false), "");
}

TEST(NcclTestsRowOrder, BlocksOfTypesReductionsAndRootsComeBackOnlyAsWholeRepeats) {
  NcclTestsRowOrder order;
  // -d float,half -N 2 as pipebench sweeps it: float, half, float, half.
  for (int cycle = 0; cycle < 2; ++cycle) {
    for (const char* type : {"float", "half"}) {
      for (const std::uint64_t s : {8, 64, 512}) EXPECT_EQ(order.add(type, "sum", -1, s), "") << type << s;
    }
  }
  EXPECT_EQ(order.footer(), "");
  // Another block before a repeat is whole.
  NcclTestsRowOrder cut;
  for (const std::uint64_t s : {8, 64, 512}) ASSERT_EQ(cut.add("float", "sum", 0, s), "");
  for (const std::uint64_t s : {8, 64, 512}) ASSERT_EQ(cut.add("float", "sum", 1, s), "");
  ASSERT_EQ(cut.add("float", "sum", 0, 8), "");
  EXPECT_EQ(cut.add("float", "sum", 1, 8),
            "the rows of float sum root 1 after 1 of the 3 sizes of a repeat of the rows of float sum root 0");
}

}  // namespace
}  // namespace pipebench
