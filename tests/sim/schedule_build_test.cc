// SPDX-License-Identifier: Apache-2.0
// The schedule build shared by predict and executors: ranks, spec, messages inside / after, folding.
#include "sim/schedule_build.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

Plan plan_of(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return make_plan(parse_megatron_args(w), 0);
}

// tp 2 x dp 2 x pp 4: TP collectives inside the schedule, DP and embedding gradients after it.
const char* kModel =
    "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --micro-batch-size 1 "
    "--global-batch-size 16 --pipeline-model-parallel-size 4 --tensor-model-parallel-size 2 --bf16 "
    "--vocab-size 1000 --world-size 16";

double compute_ms(const std::vector<Program>& programs, std::size_t r) {
  double ns = 0;
  for (const auto& t : programs[r].tasks) {
    if (t.kind == Task::Kind::kCompute) ns += static_cast<double>(t.duration);
  }
  return ns / 1e6;
}

TEST(ScheduleBuild, SplitsThePipelineGroupsMessagesAndFoldsOnlyWhenAsked) {
  const Plan plan = plan_of(kModel);
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel c = make_compute_model(plan, o);
  const AssumedCost link(10, 5);
  const Schedule& s = plan.schedules.at(0);
  const ScheduleBuild plain = build_schedule(plan, s, c, link, false);
  const ScheduleBuild folded = build_schedule(plan, s, c, link, true);
  EXPECT_EQ(plain.ranks, plan.layout.pp_groups.front());
  EXPECT_EQ(plain.spec.kind, ScheduleKind::kOneFOneB);
  EXPECT_EQ(plain.spec.p, 4);
  EXPECT_EQ(plain.spec.m, plan.layout.microbatches);
  EXPECT_EQ(plain.spec.p2p_bytes, 256 * 1024 * 2);  // one bf16 activation, s x b x h
  ASSERT_EQ(plain.programs.size(), 4u);
  for (std::size_t r = 0; r < 4; ++r) {
    ASSERT_FALSE(plain.inside[r].empty()) << r;  // TP all-reduces of every layer
    ASSERT_FALSE(plain.after[r].empty()) << r;   // DP gradient all-reduce at least
    double inside = 0;
    for (const auto& m : plain.inside[r]) {
      EXPECT_NE(m.message.op, "send");
      EXPECT_EQ(m.message.rank, plain.ranks[r]);
      EXPECT_NE(m.message.phase, Phase::kAfter);
      inside += m.ms;
    }
    EXPECT_NEAR(plain.inside_comm_ms[r], inside, 1e-9);
    EXPECT_GT(inside, 0);
    for (const auto& m : plain.after[r]) EXPECT_EQ(m.message.phase, Phase::kAfter);
    // The spec never carries the collectives; the folded programs do, once per iteration.
    EXPECT_EQ(plain.spec.fwd, folded.spec.fwd);
    EXPECT_NEAR(compute_ms(folded.programs, r) - compute_ms(plain.programs, r), inside, 1e-3) << r;
  }
  EXPECT_EQ(plain.cost_sources, std::set<std::string>{"assumed"});
}

TEST(ScheduleBuild, GpipeByNameAndCostModelErrorsPropagate) {
  const Plan plan = plan_of(kModel);
  ComputeOptions o;
  o.tflops = 100;
  const ComputeModel c = make_compute_model(plan, o);
  Schedule g = plan.schedules.at(0);
  g.name = "gpipe";
  EXPECT_EQ(build_schedule(plan, g, c, ZeroCost{}, true).spec.kind, ScheduleKind::kGpipe);
  ResultRecord only;
  only.op = "pair";
  only.ranks = {0, 2};
  only.size_bytes = 1024;
  only.time_us = 3.0;
  only.bidirectional = true;
  const MeasuredCost measured({only}, RankClassMap(), "t.json");
  EXPECT_THROW((void)build_schedule(plan, plan.schedules.at(0), c, measured, true), UsageError);
}

TEST(ScheduleBuild, MoreTasksThanTheLimitAreRefusedBeforeAnyIsBuilt) {
  // p 8, v 8, 16384 microbatches: about 4.2M tasks per schedule, past kMaxSimTasks (2^21).
  const Plan plan = plan_of(
      "--num-layers 64 --hidden-size 64 --num-attention-heads 4 --seq-length 16 --micro-batch-size 1 "
      "--global-batch-size 16384 --pipeline-model-parallel-size 8 --vocab-size 100 "
      "--num-layers-per-virtual-pipeline-stage 1");
  ComputeOptions o;
  o.fwd_ms_per_layer = 1;
  const ComputeModel c = make_compute_model(plan, o);
  const AssumedCost link(10, 5);
  const Schedule& interleaved = plan.schedules.back();
  ASSERT_EQ(interleaved.v, 8);
  try {
    (void)build_schedule(plan, interleaved, c, link, false);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "schedule interleaved (p 8, v 8, 16384 microbatches) needs more than 2097152 simulated tasks (the limit; "
              "fewer microbatches or a shorter pipeline)");
  }
  EXPECT_NO_THROW((void)build_schedule(plan, plan.schedules.front(), c, link, false));  // 1F1B: 524288 tasks
}

}  // namespace
}  // namespace pipebench
