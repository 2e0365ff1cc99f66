// SPDX-License-Identifier: Apache-2.0
// The terms derived from the measured pass costs (the measurement itself: pass_costs_gpu_test.cc).
#include "backend/pass_costs.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

Stats median_of(double us) {
  Stats s;
  s.samples = 1;
  s.median_us = us;
  return s;
}

TEST(PassCosts, TheSmSlowdownIsTheRatioOfTheMediansLessOneAndNeverNegative) {
  PassCosts c;
  c.gemm_alone_us = median_of(2000);
  c.gemm_beside_nccl_us = median_of(2300);
  EXPECT_NEAR(c.comm_sm_slowdown(), 0.15, 1e-12);
  c.gemm_beside_nccl_us = median_of(1990);  // noise: faster beside NCCL
  EXPECT_EQ(c.comm_sm_slowdown(), 0);
  c.gemm_alone_us = median_of(0);  // nothing measured
  EXPECT_EQ(c.comm_sm_slowdown(), 0);
}

// On H100 with CUDA_DEVICE_MAX_CONNECTIONS=1 a 1.2 ms pass beside 1.8 ms of queued NCCL kernels took 2.6 ms: the
// two ran one after the other, which is no share of SMs; unset, the same pass took 1.4 ms beside them.
TEST(PassCosts, GemmsThatWaitedForNcclsKernelsGiveNoSmSlowdown) {
  PassCosts c;
  c.gemm_alone_us = median_of(1200);
  c.nccl_beside_us = 1800;
  c.gemm_beside_nccl_us = median_of(2600);
  EXPECT_TRUE(c.serialised());
  EXPECT_EQ(c.comm_sm_slowdown(), 0);
  c.gemm_beside_nccl_us = median_of(1400);
  EXPECT_FALSE(c.serialised());
  EXPECT_NEAR(c.comm_sm_slowdown(), 1400.0 / 1200 - 1, 1e-12);
  c.nccl_beside_us = 0;  // nothing queued beside: nothing to tell apart
  c.gemm_beside_nccl_us = median_of(2600);
  EXPECT_FALSE(c.serialised());
}

TEST(PassCosts, TheHostsPartIsWhatTheCallTakesBeyondItsKernel) {
  PassCosts c;
  c.call_device_us = median_of(40);
  c.call_host_us = median_of(57.5);
  EXPECT_NEAR(c.call_host_beyond_device_us(), 17.5, 1e-12);
  c.call_host_us = median_of(39);
  EXPECT_EQ(c.call_host_beyond_device_us(), 0);
}

}  // namespace
}  // namespace pipebench
