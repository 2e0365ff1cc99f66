// SPDX-License-Identifier: Apache-2.0
// ModelError to the command's line: the flag names the commands have always printed.
#include "service/model_error_flags.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

std::string line(const ModelError& e) { return with_flags(e, "t.json", "interleaved:v3").what(); }

TEST(ModelErrorFlags, NamesTheFlagOfEachInput) {
  EXPECT_EQ(line(ModelError(ModelError::Input::kNegativeCompute, "x", "must not be negative")),
            "--fwd-ms-per-layer/--bwd-ms-per-layer/--tflops/--optimizer-ms/--comm-sm-slowdown: must not be negative");
  EXPECT_EQ(line(ModelError(ModelError::Input::kNoComputeTime, "x", "")),
            "compute time: give --fwd-ms-per-layer MS (> 0) or --tflops T (achieved TFLOP/s per GPU)");
  EXPECT_EQ(line(ModelError(ModelError::Input::kNoMeasuredRecord, "x", "no measured record to predict from")),
            "--table t.json: no measured record to predict from");
  EXPECT_EQ(line(ModelError(ModelError::Input::kNoMeasurement, "x", "no measurement of pair 0-1", false)),
            "--table t.json: no measurement of pair 0-1 (run pipebench bench --plan with this plan on these ranks, "
            "or allow --class-fallback)");
  EXPECT_EQ(line(ModelError(ModelError::Input::kNoMeasurement, "x", "no measurement of pair 0-1", true)),
            "--table t.json: no measurement of pair 0-1 (run pipebench bench --plan with this plan on these ranks)");
  EXPECT_EQ(line(ModelError(ModelError::Input::kUnknownSchedule, "x", "not a schedule of this plan")),
            "--schedule interleaved:v3: not a schedule of this plan");
}

}  // namespace
}  // namespace pipebench
