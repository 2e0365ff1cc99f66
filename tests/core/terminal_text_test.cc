// SPDX-License-Identifier: Apache-2.0
#include "core/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace pipebench {
namespace {

TEST(TerminalText, ControlBytesAreShownAsHex) {
  EXPECT_EQ(one_line("a\x1b[2J\nb\x7f"), "a\\x1b[2J\\x0ab\\x7f");
  EXPECT_EQ(one_line(std::string("0F\0"
                                 "0",
                                 4)),
            "0F\\x000");
  EXPECT_EQ(visible_controls("a\tb\nc\x1b"), "a\tb\nc\\x1b");
  EXPECT_EQ(one_line("ab\xff"), "ab\xef\xbf\xbd");
}

// Characters a terminal shows as nothing, or that reorder the rest of the line, are named.
TEST(TerminalText, FormatCharactersAreShownAsCodePoints) {
  EXPECT_EQ(one_line("0\u200bF0"), "0\\u200bF0");
  EXPECT_EQ(one_line("\u202e0F0"), "\\u202e0F0");
  EXPECT_EQ(one_line("a\u2028b\ufeffc\u00add\u0085"), "a\\u2028b\\ufeffc\\u00add\\u0085");
  EXPECT_EQ(one_line("\U000e0041"), "\\ue0041");
  EXPECT_EQ(one_line("2p\u22121 \u00e9\u4e2d"), "2p\u22121 \u00e9\u4e2d");  // visible text stays as it is
}

// A quoted text is cut after kQuotedChars characters (not bytes: a multi-byte character is never split),
// with its length; a NUL inside is shown, so that the message does not end there.
TEST(TerminalText, QuotedTextIsCutWithItsLength) {
  const std::string cell(1'000'000, 'x');
  EXPECT_EQ(quotable(cell), std::string(kQuotedChars, 'x') + "... (1000000 bytes)");
  std::string wide;
  for (std::size_t i = 0; i < kQuotedChars + 1; ++i) wide += "\u00e9";
  std::string first;
  for (std::size_t i = 0; i < kQuotedChars; ++i) first += "\u00e9";
  EXPECT_EQ(quotable(wide), first + "... (402 bytes)");
  EXPECT_EQ(quotable(std::string(kQuotedChars, 'y')), std::string(kQuotedChars, 'y'));
  EXPECT_EQ(quotable(std::string("0F\0"
                                 "0",
                                 4)),
            "0F\\x000");
  EXPECT_EQ(quotable(""), "");
}

}  // namespace
}  // namespace pipebench
