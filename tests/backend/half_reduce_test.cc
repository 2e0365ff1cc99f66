// SPDX-License-Identifier: Apache-2.0
#include "backend/half_reduce.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/element.h"

namespace pipebench {
namespace {

constexpr RedOp kOps[] = {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin};
constexpr DType kTypes[] = {DType::kHalf, DType::kBfloat16};

bool is_nan_word(DType t, std::uint16_t w) {
  return t == DType::kHalf ? (w & 0x7c00u) == 0x7c00u && (w & 0x3ffu) != 0
                           : (w & 0x7f80u) == 0x7f80u && (w & 0x7fu) != 0;
}

// The reduction written out through element.h's generic conversions, element by element: what the MPI
// ops computed before they had a loop of their own.
std::uint16_t reference(DType t, RedOp op, std::uint16_t in, std::uint16_t inout) {
  // Eight-byte slots: element.h's switch holds every width, and the compiler checks them all.
  std::uint64_t slot_a = 0, slot_b = 0, slot_out = 0;
  std::memcpy(&slot_a, &in, sizeof in);
  std::memcpy(&slot_b, &inout, sizeof inout);
  const double a = load_element(t, &slot_a, 0);
  const double b = load_element(t, &slot_b, 0);
  double r = b;
  if (op == RedOp::kSum) r = static_cast<float>(a) + static_cast<float>(b);
  if (op == RedOp::kProd) r = static_cast<float>(a) * static_cast<float>(b);
  if (op == RedOp::kMax) r = a > b ? a : b;
  if (op == RedOp::kMin) r = a < b ? a : b;
  store_element(t, &slot_out, 0, r);
  std::uint16_t out = 0;
  std::memcpy(&out, &slot_out, sizeof out);
  return out;
}

// The other operand: zeros of both signs, the smallest and largest subnormals and normals, one, values
// whose sum or product rounds (ties included), the largest finite, infinities and NaNs, then a spread.
std::vector<std::uint16_t> operands(DType t) {
  std::vector<std::uint16_t> v = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00,
                                  0x3c01, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x4000};
  if (t == DType::kBfloat16)
    v = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80,
         0x3f81, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x4000};
  for (std::uint32_t w = 0x0123; w < 0x10000; w += 0x0fed) v.push_back(static_cast<std::uint16_t>(w));
  return v;
}

// Every 16-bit word against every operand, compared with the reference: the same word, or a NaN
// where the reference is a NaN.
void expect_reference(DType t, RedOp op, const std::vector<std::uint16_t>& in, const std::vector<std::uint16_t>& before,
                      const std::vector<std::uint16_t>& after, const std::string& path) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint16_t want = reference(t, op, in[i], before[i]);
    const bool same = is_nan_word(t, want) ? is_nan_word(t, after[i]) : after[i] == want;
    if (!same && ++wrong <= 3)
      ADD_FAILURE() << path << " " << dtype_name(t) << " " << redop_name(op) << ": " << std::hex << in[i] << " op "
                    << before[i] << " gave " << after[i] << ", the reference " << want;
  }
  EXPECT_EQ(wrong, 0u) << path << " " << dtype_name(t) << " " << redop_name(op);
}

TEST(HalfReduce, EveryWordAgainstEachOperandIsTheReferenceInALongArray) {
  // A long array runs the eight-word loop where the CPU has one, with a scalar tail of 7 words.
  for (DType t : kTypes) {
    const std::vector<std::uint16_t> others = operands(t);
    std::vector<std::uint16_t> in, before;
    for (std::uint16_t b : others) {
      for (std::uint32_t w = 0; w < 0x10000; ++w) {
        in.push_back(static_cast<std::uint16_t>(w));
        before.push_back(b);
      }
    }
    in.resize(in.size() - 9);  // not a multiple of 8
    before.resize(in.size());
    for (RedOp op : kOps) {
      std::vector<std::uint16_t> after = before;
      reduce_words16(t, op, in.data(), after.data(), in.size());
      expect_reference(t, op, in, before, after, "array");
    }
  }
}

TEST(HalfReduce, EveryWordAgainstEachOperandIsTheReferenceOneWordAtATime) {
  // One word per call: the scalar loop, which is all a CPU without F16C/AVX2 runs.
  for (DType t : kTypes) {
    const std::vector<std::uint16_t> all = operands(t);
    const std::vector<std::uint16_t> others(all.begin(), all.begin() + 16);  // the special values
    for (RedOp op : kOps) {
      std::vector<std::uint16_t> in, before, after;
      for (std::uint16_t b : others) {
        for (std::uint32_t w = 0; w < 0x10000; ++w) {
          std::uint16_t out = b;
          const auto word = static_cast<std::uint16_t>(w);
          reduce_words16(t, op, &word, &out, 1);
          in.push_back(word);
          before.push_back(b);
          after.push_back(out);
        }
      }
      expect_reference(t, op, in, before, after, "one word");
    }
  }
}

TEST(HalfReduce, SumsOfKnownValuesAndNothingBeyondTheCount) {
  const std::uint16_t in[9] = {0x3c00, 0x4000, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00};
  std::uint16_t inout[10] = {0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x1234};
  reduce_words16(DType::kHalf, RedOp::kSum, in, inout, 9);
  EXPECT_EQ(inout[0], 0x4000);             // 1 + 1 = 2
  EXPECT_EQ(inout[1], 0x4200);             // 2 + 1 = 3
  EXPECT_EQ(inout[8], 0x4000);             // the scalar tail
  EXPECT_EQ(inout[9], 0x1234);             // past the count: untouched
  std::uint16_t bf[2] = {0x3f80, 0x3f80};  // bfloat16 1.0 + 1.0
  reduce_words16(DType::kBfloat16, RedOp::kSum, bf, bf + 1, 1);
  EXPECT_EQ(bf[1], 0x4000);
  reduce_words16(DType::kHalf, RedOp::kNone, in, inout, 9);  // kNone leaves inout alone
  EXPECT_EQ(inout[1], 0x4200);
}

}  // namespace
}  // namespace pipebench
