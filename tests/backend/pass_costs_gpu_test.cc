// SPDX-License-Identifier: Apache-2.0
// The pass-cost measurement on a real GPU: every term is there, finite and in the range a GPU can give.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "backend/backend_factory.h"
#include "core/error.h"
#include "sim/layer_gemms.h"

#if PB_HAVE_CUBLAS
#include "backend/pass_costs.h"
#endif

namespace pipebench {
namespace {

#if PB_HAVE_CUBLAS

class PassCostsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (visible_gpus(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
  }
};

void expect_sane(const Stats& s, double max_us, const char* what) {
  EXPECT_EQ(s.samples, 20u) << what;
  EXPECT_TRUE(std::isfinite(s.median_us)) << what;
  EXPECT_GE(s.min_us, 0) << what;
  EXPECT_LE(s.min_us, s.median_us) << what;
  EXPECT_LE(s.median_us, s.max_us) << what;
  EXPECT_LT(s.median_us, max_us) << what;
  ::testing::Test::RecordProperty(what, std::to_string(s.median_us));
}

// One layer of h 1024, s 512 in bf16; a 1 MiB activation.
TEST_F(PassCostsGpu, EveryTermIsMeasuredAndInRange) {
  const auto gemms = layer_forward_gemms(LayerDims{1, 512, 1024, 4096, 16, 16});
  const PassCosts c = measure_pass_costs({gemms, DType::kBfloat16, std::int64_t{1} << 20, 0, 20});
  expect_sane(c.call_device_us, 10000, "call_device_us");
  expect_sane(c.call_host_us, 20000, "call_host_us");
  expect_sane(c.sync_gap_us, 10000, "sync_gap_us");
  expect_sane(c.gemm_alone_us, 100000, "gemm_alone_us");
  expect_sane(c.gemm_beside_nccl_us, 200000, "gemm_beside_nccl_us");
  EXPECT_GT(c.call_device_us.median_us, 0);
  EXPECT_GT(c.gemm_alone_us.median_us, 0);
  // The host waits for the kernel: posting to the sync's return is never much shorter than the kernel.
  EXPECT_GE(c.call_host_us.median_us, 0.9 * c.call_device_us.median_us);
  EXPECT_LT(c.comm_sm_slowdown(), 5);
}

TEST_F(PassCostsGpu, ARequestWithoutAMessageIsRefused) {
  const auto gemms = layer_forward_gemms(LayerDims{1, 512, 1024, 4096, 16, 16});
  EXPECT_THROW((void)measure_pass_costs({gemms, DType::kBfloat16, 0, 0, 20}), UsageError);
  EXPECT_THROW((void)measure_pass_costs({{}, DType::kBfloat16, 1024, 0, 20}), UsageError);
}

#endif

}  // namespace
}  // namespace pipebench
