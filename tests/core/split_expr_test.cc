// SPDX-License-Identifier: Apache-2.0
// nccl-tests' NCCL_TESTS_SPLIT / NCCL_TESTS_SPLIT_MASK syntax (common.cu run(), parseInt).
#include "core/split_expr.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

using Groups = std::vector<std::vector<int>>;

TEST(SplitExpr, ModTwoMakesTwoInterleavedGroups) {
  const SplitRule r = parse_split_expr("--split", "MOD 2");
  EXPECT_EQ(split_groups(r, 4), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(split_groups(parse_split_expr("--split", "%2"), 4), (Groups{{0, 2}, {1, 3}}));
}

TEST(SplitExpr, DivGroupsContiguousRanks) {
  EXPECT_EQ(split_groups(parse_split_expr("--split", "DIV 8"), 16)[1].front(), 8);
  EXPECT_EQ(split_groups(parse_split_expr("--split", "/ 2"), 4), (Groups{{0, 1}, {2, 3}}));
}

TEST(SplitExpr, AndOrAndTheValueBases) {
  EXPECT_EQ(parse_split_expr("--split", "AND 0x7").value, 7u);
  EXPECT_EQ(parse_split_expr("--split", "and 0b101").value, 5u);
  EXPECT_EQ(parse_split_expr("--split", "& 3").color(6), 2u);
  EXPECT_EQ(parse_split_expr("--split", "OR 1").color(4), 5u);
  EXPECT_EQ(parse_split_expr("--split", "| 1").kind, SplitRule::Kind::kOr);
  EXPECT_EQ(split_groups(parse_split_expr("--split", "AND 0"), 3), (Groups{{0, 1, 2}}));
}

TEST(SplitExpr, MaskIsHexadecimal) {
  EXPECT_EQ(parse_split_mask("NCCL_TESTS_SPLIT_MASK", "10").value, 16u);
  EXPECT_EQ(parse_split_mask("NCCL_TESTS_SPLIT_MASK", "0x3").color(7), 3u);
  EXPECT_EQ(split_groups(parse_split_mask("NCCL_TESTS_SPLIT_MASK", "1"), 4), (Groups{{0, 2}, {1, 3}}));
}

TEST(SplitExpr, BadInputNamesTheSourceAndTheValue) {
  for (const char* bad : {"", "MOD", "MOD 0", "DIV 0", "XOR 2", "MOD two", "MOD 2x", "MOD -2", "0b"}) {
    try {
      (void)parse_split_expr("NCCL_TESTS_SPLIT", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("NCCL_TESTS_SPLIT '" + std::string(bad) + "'"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW((void)parse_split_mask("NCCL_TESTS_SPLIT_MASK", "0xg"), UsageError);
  EXPECT_THROW((void)parse_split_mask("NCCL_TESTS_SPLIT_MASK", ""), UsageError);
}

}  // namespace
}  // namespace pipebench
