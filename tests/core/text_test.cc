// SPDX-License-Identifier: Apache-2.0
#include "core/text.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(Text, PrefixAndSuffixMatchWholeNamesOnly) {
  EXPECT_TRUE(starts_with("NCCL_DEBUG", "NCCL_"));
  EXPECT_TRUE(starts_with("x", ""));
  EXPECT_FALSE(starts_with("NCC", "NCCL_"));
  EXPECT_FALSE(starts_with("nccl_debug", "NCCL_"));
  EXPECT_TRUE(ends_with("rank3.json.gz", ".json.gz"));
  EXPECT_FALSE(ends_with(".gz", "json.gz"));
  EXPECT_FALSE(ends_with("rank3.JSON", ".json"));
}

TEST(Text, LowerFoldsAsciiOnly) {
  EXPECT_EQ(lower("BF16-Half_X9"), "bf16-half_x9");
  EXPECT_EQ(lower(""), "");
  EXPECT_EQ(lower("\xC3\x89t\xC3\xA9"), "\xC3\x89t\xC3\xA9");  // UTF-8 bytes stay as they are
}

}  // namespace
}  // namespace pipebench
