// SPDX-License-Identifier: Apache-2.0
#include "core/units.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(ParseSizeBytes, AcceptsPlainNumbersAndBinarySuffixes) {
  EXPECT_EQ(parse_size_bytes("-b", "8"), 8u);
  EXPECT_EQ(parse_size_bytes("-b", "64K"), 64u * 1024);
  EXPECT_EQ(parse_size_bytes("-b", "64k"), 64u * 1024);
  EXPECT_EQ(parse_size_bytes("-b", "1.5M"), 3u * 512 * 1024);
  EXPECT_EQ(parse_size_bytes("-b", "1G"), 1ull << 30);
  EXPECT_EQ(parse_size_bytes("-b", "1GB"), 1ull << 30);
  EXPECT_EQ(parse_size_bytes("-b", "1GiB"), 1ull << 30);
  EXPECT_EQ(parse_size_bytes("-b", "2T"), 2ull << 40);
  EXPECT_EQ(parse_size_bytes("-b", "100B"), 100u);
}

TEST(ParseSizeBytes, RejectsBadSizesNamingTheFlag) {
  for (const char* bad : {"", "0", "-5", "abc", "1X", "1.5", "1..5K", "K", "1KX", "0.0001K"}) {
    try {
      (void)parse_size_bytes("-e", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("-e"), std::string::npos) << e.what();
    }
  }
}

TEST(FormatSize, UsesTheLargestExactSuffix) {
  EXPECT_EQ(format_size(8), "8");
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(1536), "1536");
  EXPECT_EQ(format_size(64ull << 20), "64M");
  EXPECT_EQ(format_size(1ull << 30), "1G");
}

TEST(Gbps, IsDecimalGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(gbps(1e9, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(gbps(1ull << 30, 1.0), 1.073741824);
  EXPECT_DOUBLE_EQ(gbps(100, 0), 0.0);
}

}  // namespace
}  // namespace pipebench
