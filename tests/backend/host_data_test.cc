// SPDX-License-Identifier: Apache-2.0
#include "backend/host_data.h"

#include <gtest/gtest.h>

#include <vector>

namespace pipebench {
namespace {

TEST(HostData, AFilledBufferChecksCleanAgainstItsOwnPattern) {
  std::vector<float> buf(100);
  const Pattern p = make_pattern(DType::kFloat, RedOp::kNone, 4, 1);
  host_fill(buf.data(), {BufferRole::kRecv, 10, 50, 3, 0}, p, DType::kFloat);
  EXPECT_EQ(host_count_wrong(buf.data(), {10, 50, false, 3, 0}, p, DType::kFloat), 0u);
}

TEST(HostData, CountsEveryWrongElement) {
  std::vector<std::uint16_t> buf(64);
  const Pattern p = make_pattern(DType::kBfloat16, RedOp::kNone, 2, 0);
  host_fill(buf.data(), {BufferRole::kRecv, 0, 64, 1, 0}, p, DType::kBfloat16);
  buf[5] ^= 1;
  buf[40] ^= 0x100;
  EXPECT_EQ(host_count_wrong(buf.data(), {0, 64, false, 1, 0}, p, DType::kBfloat16), 2u);
  // The data of another rank, or another seed, is wrong almost everywhere.
  EXPECT_GT(host_count_wrong(buf.data(), {0, 64, false, 0, 0}, p, DType::kBfloat16), 50u);
}

TEST(HostData, ReducedCheckMatchesAHandReduction) {
  const int n = 3;
  std::vector<double> sum(32, 0.0);
  const Pattern p = make_pattern(DType::kDouble, RedOp::kSum, n, 7);
  for (int r = 0; r < n; ++r) {
    std::vector<double> in(32);
    host_fill(in.data(), {BufferRole::kSend, 0, 32, r, 0}, p, DType::kDouble);
    for (int i = 0; i < 32; ++i) sum[static_cast<std::size_t>(i)] += in[static_cast<std::size_t>(i)];
  }
  EXPECT_EQ(host_count_wrong(sum.data(), {0, 32, true, 0, 0}, p, DType::kDouble), 0u);
  sum[0] += 1;
  EXPECT_EQ(host_count_wrong(sum.data(), {0, 32, true, 0, 0}, p, DType::kDouble), 1u);
}

}  // namespace
}  // namespace pipebench
