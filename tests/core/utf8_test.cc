// SPDX-License-Identifier: Apache-2.0
#include "core/utf8.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(Utf8, AcceptsWellFormedTextOnly) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("H200 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // 2, 3 and 4 bytes
  for (const char* bad :
       {"\xFF", "a\xFE", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC3", "\xE2\x82"}) {
    EXPECT_FALSE(valid_utf8(bad)) << bad;  // invalid byte, overlong, surrogate, above U+10FFFF, cut short
  }
}

TEST(Utf8, ReplacesEachIllFormedByteAndCountsThem) {
  std::size_t n = 0;
  EXPECT_EQ(utf8_replaced("a\xFF\xFE"
                          "b",
                          &n),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(utf8_replaced("\xC3\xA9", &n), "\xC3\xA9");
  EXPECT_EQ(n, 0u);
  EXPECT_TRUE(valid_utf8(utf8_replaced("\xE2\x82 x \xF0\x9F")));
}

}  // namespace
}  // namespace pipebench
