// SPDX-License-Identifier: Apache-2.0
#include "service/bench_sweep.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

// bench: 3 wrong data, 1 a failed point, 7 a low NCCL_TESTS_MIN_BW average; as an nccl-tests binary, 7 for
// wrong data too (nccl-tests' testNumResults).
TEST(BenchExitStatus, NcclTestsCodesWhereNcclTestsHasThem) {
  SweepSummary clean, wrong, failed;
  wrong.wrong = 4;
  failed.errors = 1;
  EXPECT_EQ(exit_status(clean, false, false), 0);
  EXPECT_EQ(exit_status(clean, true, false), 7);
  EXPECT_EQ(exit_status(wrong, false, false), 3);
  EXPECT_EQ(exit_status(wrong, true, false), 3);
  EXPECT_EQ(exit_status(failed, true, false), 1);
  EXPECT_EQ(exit_status(wrong, false, true), 7);
  EXPECT_EQ(exit_status(clean, true, true), 7);
  EXPECT_EQ(exit_status(failed, false, true), 1);
  EXPECT_EQ(exit_status(clean, false, true), 0);
}

}  // namespace
}  // namespace pipebench
