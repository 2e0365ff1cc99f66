// SPDX-License-Identifier: Apache-2.0
// A plan's pass-cost request, and where nothing is measured: one line saying why (the measurement itself:
// plan_pass_costs_gpu_test.cc).
#include "service/plan_pass_costs.h"

#include <gtest/gtest.h>

#include <sstream>

#include "app/loopback.h"
#include "core/command_line.h"
#include "megatron/model_args.h"
#include "sim/layer_gemms.h"

namespace pipebench {
namespace {

Plan plan_of(int pp) {
  const std::string stages = std::to_string(pp);
  return make_plan(parse_megatron_args(split_words(
                       "--num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 128 "
                       "--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 --vocab-size 128 "
                       "--bf16 --pipeline-model-parallel-size " +
                       stages + " --world-size " + stages)),
                   0);
}

TEST(PlanPassCosts, TheRequestIsThePlansActivationAndOneLayersForwardGemms) {
  const Plan plan = plan_of(2);
  const PassCostRequest r = plan_pass_cost_request(plan, 3);
  EXPECT_EQ(r.p2p_bytes, 128 * 1 * 256 * 2);  // s x b x h in bf16
  EXPECT_EQ(r.device, 3);
  EXPECT_EQ(r.dtype, DType::kBfloat16);
  EXPECT_EQ(r.gemms.size(), layer_forward_gemms(plan_layer_dims(plan)).size());
  EXPECT_FALSE(r.gemms.empty());
  EXPECT_EQ(plan_pass_cost_request(plan_of(1), 0).p2p_bytes, 0);  // one stage sends nothing
}

TEST(PlanPassCosts, HostRanksMeasureNothingAndSaySo) {
  testing::LoopbackBackend backend(2, 0);
  std::ostringstream out;
  EXPECT_FALSE(measure_plan_pass_costs(backend, plan_of(2), out).has_value());
  EXPECT_EQ(out.str(), "# pass costs: not measured (host ranks: no GPU)\n");
}

}  // namespace
}  // namespace pipebench
