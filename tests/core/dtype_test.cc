// SPDX-License-Identifier: Apache-2.0
#include "core/dtype.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

TEST(ParseDtype, AcceptsNcclTestsNamesAndAliases) {
  EXPECT_EQ(parse_dtype("-d", "float"), DType::kFloat);
  EXPECT_EQ(parse_dtype("-d", "half"), DType::kHalf);
  EXPECT_EQ(parse_dtype("-d", "fp16"), DType::kHalf);
  EXPECT_EQ(parse_dtype("-d", "bfloat16"), DType::kBfloat16);
  EXPECT_EQ(parse_dtype("-d", "BF16"), DType::kBfloat16);
  EXPECT_EQ(parse_dtype("-d", "int8"), DType::kInt8);
  EXPECT_EQ(parse_dtype("-d", "double"), DType::kDouble);
}

TEST(ParseDtype, UnknownTypeNamesTheFlagAndTheChoices) {
  try {
    (void)parse_dtype("-d", "float128");
    FAIL();
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("-d: unknown data type 'float128'"), std::string::npos) << m;
    EXPECT_NE(m.find("bfloat16"), std::string::npos) << m;
  }
}

TEST(ParseRedop, AcceptsTheFourReductionsOnly) {
  EXPECT_EQ(parse_redop("-o", "sum"), RedOp::kSum);
  EXPECT_EQ(parse_redop("-o", "PROD"), RedOp::kProd);
  EXPECT_EQ(parse_redop("-o", "max"), RedOp::kMax);
  EXPECT_EQ(parse_redop("-o", "min"), RedOp::kMin);
  EXPECT_THROW((void)parse_redop("-o", "avg"), UsageError);
  EXPECT_THROW((void)parse_redop("-o", "none"), UsageError);
}

TEST(DtypeSize, MatchesTheElementWidths) {
  EXPECT_EQ(dtype_size(DType::kInt8), 1u);
  EXPECT_EQ(dtype_size(DType::kHalf), 2u);
  EXPECT_EQ(dtype_size(DType::kBfloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kFloat), 4u);
  EXPECT_EQ(dtype_size(DType::kUint64), 8u);
  EXPECT_EQ(all_dtypes().size(), 10u);
}

}  // namespace
}  // namespace pipebench
