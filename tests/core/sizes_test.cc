// SPDX-License-Identifier: Apache-2.0
#include "core/sizes.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(SweepSizes, GeometricWithFactorStopsAtMax) {
  EXPECT_EQ(sweep_sizes(8, 1024, 4, 0), (std::vector<std::uint64_t>{8, 32, 128, 512}));
  EXPECT_EQ(sweep_sizes(8, 8, 2, 0), (std::vector<std::uint64_t>{8}));
}

TEST(SweepSizes, LinearWithStepWhenFactorIsOne) {
  EXPECT_EQ(sweep_sizes(1000, 4000, 1, 1000), (std::vector<std::uint64_t>{1000, 2000, 3000, 4000}));
}

TEST(SweepSizes, RejectsMinAboveMaxZeroStartAndZeroStep) {
  EXPECT_THROW((void)sweep_sizes(1 << 20, 8192, 2, 0), UsageError);
  EXPECT_THROW((void)sweep_sizes(0, 8192, 2, 0), UsageError);
  EXPECT_THROW((void)sweep_sizes(8, 8192, 1, 0), UsageError);
  try {
    (void)sweep_sizes(1 << 20, 8192, 2, 0);
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-b 1M is larger than -e 8K");
  }
}

TEST(SweepSizes, RefusesAnAbsurdlyLongLinearSweep) {
  EXPECT_THROW((void)sweep_sizes(8, 64ull << 40, 1, 1 << 20), UsageError);
  EXPECT_EQ(sweep_sizes(8, 8 + 9999, 1, 1).size(), 10000u);
}

TEST(SweepSizes, DoesNotLoopForeverNearTheTopOfTheRange) {
  const auto s = sweep_sizes(1ull << 62, ~0ull, 4, 0);
  EXPECT_EQ(s.size(), 1u);
}

TEST(ParseSizeList, ParsesEveryItemAndNamesTheFlag) {
  EXPECT_EQ(parse_size_list("--sizes", "8,256K,64M"), (std::vector<std::uint64_t>{8, 256 * 1024, 64 << 20}));
  EXPECT_THROW((void)parse_size_list("--sizes", "8,,64M"), UsageError);
  EXPECT_THROW((void)parse_size_list("--sizes", "8,0"), UsageError);
}

// Each size given twice would be measured twice, its records counted double.
TEST(ParseSizeList, RefusesASizeGivenTwiceInAnySpelling) {
  for (const char* list : {"8,8,8", "1K,64,1024", "1M,1048576"}) {
    try {
      (void)parse_size_list("--sizes", list);
      ADD_FAILURE() << list;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--sizes: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(" bytes given twice"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(parse_size_list("--sizes", "64,8"), (std::vector<std::uint64_t>{64, 8}));
}

}  // namespace
}  // namespace pipebench
