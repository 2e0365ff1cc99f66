// SPDX-License-Identifier: Apache-2.0
#include "core/element.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pipebench {
namespace {

TEST(HalfConversion, KnownBitPatterns) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);                      // rounds up to infinity
  EXPECT_EQ(float_to_half_bits(2049.0f), float_to_half_bits(2048.0f));  // ties to even
  EXPECT_EQ(float_to_half_bits(2051.0f), float_to_half_bits(2052.0f));
  EXPECT_EQ(float_to_half_bits(5.960464477539063e-8f), 0x0001);  // smallest subnormal
  EXPECT_FLOAT_EQ(half_bits_to_float(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
}

TEST(HalfConversion, RoundTripsEveryFiniteHalf) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;  // inf/nan
    ASSERT_EQ(float_to_half_bits(half_bits_to_float(static_cast<std::uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(Bf16Conversion, KnownBitPatternsAndRounding) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(257.0f), float_to_bf16_bits(256.0f));  // 257 is not representable
  EXPECT_FLOAT_EQ(bf16_bits_to_float(0x4080), 4.0f);
}

TEST(StoreLoad, RoundTripsSmallIntegersInEveryType) {
  std::vector<unsigned char> buf(64);
  for (DType t : all_dtypes()) {
    for (double v : {0.0, 1.0, 7.0, 60.0, 120.0}) {
      store_element(t, buf.data(), 3, v);
      EXPECT_EQ(load_element(t, buf.data(), 3), v) << dtype_name(t);
      EXPECT_EQ(element_bits(t, buf.data(), 3), value_bits(t, v));
    }
  }
}

// The whole point of the pattern: every reduction's exact result is representable, so any order of
// reduction gives the same bits.
TEST(Pattern, ReducedValuesStayWithinTheExactIntegerLimit) {
  for (DType t : all_dtypes()) {
    for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}) {
      for (int n : {1, 2, 3, 8, 64, 300}) {
        const Pattern p = make_pattern(t, op, n, 5);
        for (std::uint64_t i = 0; i < 200; ++i) {
          const double r = reduced_value(p, i);
          ASSERT_LE(r, exact_integer_limit(t)) << dtype_name(t) << " n=" << n;
          ASSERT_EQ(r, std::floor(r));
          double partial = 0;  // every partial sum is exact too
          if (op == RedOp::kSum) {
            for (int k = n - 1; k >= 0; --k) partial += pattern_value(p, k, i);
            ASSERT_EQ(partial, r);
          }
        }
      }
    }
  }
}

TEST(Pattern, SumUsesOneHotWhenRanksExceedTheLimit) {
  const Pattern p = make_pattern(DType::kBfloat16, RedOp::kSum, 300, 0);
  EXPECT_EQ(p.sum_max, 0);
  for (std::uint64_t i = 0; i < 50; ++i) EXPECT_EQ(reduced_value(p, i), 1.0);
  EXPECT_EQ(make_pattern(DType::kBfloat16, RedOp::kSum, 4, 0).sum_max, 60);
  EXPECT_EQ(make_pattern(DType::kInt8, RedOp::kSum, 8, 0).sum_max, 15);
}

TEST(Pattern, RanksAndSeedsGiveDifferentData) {
  const Pattern a = make_pattern(DType::kFloat, RedOp::kNone, 4, 0);
  const Pattern b = make_pattern(DType::kFloat, RedOp::kNone, 4, 1);
  int differ_rank = 0, differ_seed = 0;
  for (std::uint64_t i = 0; i < 100; ++i) {
    differ_rank += pattern_value(a, 0, i) != pattern_value(a, 1, i);
    differ_seed += pattern_value(a, 0, i) != pattern_value(b, 0, i);
  }
  EXPECT_EQ(differ_rank, 100);
  EXPECT_EQ(differ_seed, 100);
}

}  // namespace
}  // namespace pipebench
