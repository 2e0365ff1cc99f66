// SPDX-License-Identifier: Apache-2.0
// The compute model: times per layer from fixed times or FLOPs, and W's share of the backward.
#include "sim/compute_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

Plan small_plan() {
  std::istringstream in(
      "--num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 2 --vocab-size 512 --world-size 2");
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return make_plan(parse_megatron_args(w), 0);
}

TEST(ComputeModel, BackwardDefaultsToTwiceTheForwardAndKeepsTheWShare) {
  const Plan plan = small_plan();
  ComputeOptions o;
  o.fwd_ms_per_layer = 1.5;
  const ComputeModel half = make_compute_model(plan, o);
  EXPECT_DOUBLE_EQ(half.bwd_ms_per_layer, 3.0);
  EXPECT_DOUBLE_EQ(half.w_share, 0.5);  // from FLOPs B and W are each one forward
  o.bwd_ms_per_layer = 4;
  o.w_share = 0.25;
  const ComputeModel quarter = make_compute_model(plan, o);
  EXPECT_DOUBLE_EQ(quarter.bwd_ms_per_layer, 4.0);  // B + W
  EXPECT_DOUBLE_EQ(quarter.w_share, 0.25);
  o.w_share = 0;
  EXPECT_DOUBLE_EQ(make_compute_model(plan, o).w_share, 0.0);
  o.w_share = 1;
  EXPECT_DOUBLE_EQ(make_compute_model(plan, o).w_share, 1.0);
}

TEST(ComputeModel, AWShareOutsideZeroToOneIsAUsageErrorNamingTheFlag) {
  const Plan plan = small_plan();
  for (const double share : {-0.01, 1.01, std::numeric_limits<double>::quiet_NaN(), HUGE_VAL}) {
    ComputeOptions o;
    o.fwd_ms_per_layer = 1;
    o.w_share = share;
    try {
      (void)make_compute_model(plan, o);
      ADD_FAILURE() << share;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--w-share"), std::string::npos) << e.what();
    }
  }
}

// --measure-compute's backward: dgrad + wgrad, W's share from the two, each unless given by a flag.
TEST(ComputeModel, AMeasuredBackwardSetsTheBackwardAndWShareUnlessFlagsDid) {
  ComputeOptions o;
  use_measured_backward(o, 2.2, 1.0, false);
  EXPECT_DOUBLE_EQ(o.bwd_ms_per_layer, 3.2);
  EXPECT_DOUBLE_EQ(o.w_share, 1.0 / 3.2);
  ComputeOptions given;
  given.bwd_ms_per_layer = 5;
  given.w_share = 0.4;
  use_measured_backward(given, 2.2, 1.0, true);
  EXPECT_DOUBLE_EQ(given.bwd_ms_per_layer, 5.0);
  EXPECT_DOUBLE_EQ(given.w_share, 0.4);
  for (const double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), HUGE_VAL}) {
    ComputeOptions c;
    EXPECT_THROW(use_measured_backward(c, bad, 1.0, false), UsageError) << bad;
  }
  ComputeOptions no_weights;  // a layer whose wgrad is empty: W takes nothing
  use_measured_backward(no_weights, 2.0, 0.0, false);
  EXPECT_DOUBLE_EQ(no_weights.w_share, 0.0);
}

}  // namespace
}  // namespace pipebench
