// SPDX-License-Identifier: Apache-2.0
// The replay's GPU side on a real GPU: the spin kernel lasts what it was asked for (CUDA events),
// alone and with an NCCL kernel in flight, and a 1-rank plan replays on NCCL with spin and with GEMM
// compute. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/backend_factory.h"
#include "backend/replay_runtime.h"
#include "backend/replay_spin.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"
#include "replay/replay.h"
#include "sim/layer_gemms.h"
#include "test_world.h"

namespace pipebench {
namespace {

class ReplayGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (visible_gpus(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
  }
};

// Median of 8 launches of 1 ms after one warm-up launch (module load; the first feedback sample).
double median_spin_ms(SpinNeighbour neighbour) {
  std::vector<double> ms = timed_spins_ms(1000000, 0, neighbour, 9);
  ms.erase(ms.begin());
  std::sort(ms.begin(), ms.end());
  const double median = (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  ::testing::Test::RecordProperty("median_ms", std::to_string(median));
  return median;
}

TEST_F(ReplayGpu, SpinKernelOfOneMsMeasuresOneMs) { EXPECT_NEAR(median_spin_ms(SpinNeighbour::kNone), 1.0, 0.01); }

// NCCL's send/recv kernel runs one persistent block per channel, as its kernels between ranks do in
// training; the spin kernel's blocks share the SMs with it and the launch still lasts 1 ms.
TEST_F(ReplayGpu, SpinKernelOfOneMsMeasuresOneMsWithNcclInFlight) {
  EXPECT_NEAR(median_spin_ms(SpinNeighbour::kNcclSendRecv), 1.0, 0.01);
}

// NCCL's one-rank reduce kernel is a grid of many blocks that the GPU dispatches before the spin
// kernel's: the spin starts when its last wave is dispatched, so it may end late, never early.
TEST_F(ReplayGpu, SpinKernelBehindOneRankReduceIsNeverShort) {
  const double ms = median_spin_ms(SpinNeighbour::kNcclOneRankReduce);
  EXPECT_GE(ms, 0.995);
  EXPECT_LE(ms, 1.05);
}

TEST_F(ReplayGpu, OneRankPlanReplaysOnNccl) {
  if (testing::world().size() != 1) GTEST_SKIP() << "a 1-rank plan needs 1 process, have " << testing::world().size();
  const MegatronArgs a =
      parse_megatron_args({"--num-layers", "2", "--hidden-size", "256", "--num-attention-heads", "4", "--seq-length",
                           "64", "--max-position-embeddings", "64", "--micro-batch-size", "1", "--global-batch-size",
                           "4", "--world-size", "1", "--vocab-size", "128", "--fp16"});
  const Plan plan = make_plan(a, 1);
  auto backend = make_backend(BackendKind::kNccl, testing::world(), 1);
  auto rt = make_nccl_replay_runtime(testing::world(), *backend, ReplayComputeOptions{});
  ReplayOptions o;
  o.compute.fwd_ms_per_layer = 1;
  o.compute.bwd_ms_per_layer = 2;
  o.iterations = 3;
  o.schedule = "1f1b";
  const ReplayResult r = replay_plan(testing::world(), *backend, *rt, plan, o, nullptr, {});
  ASSERT_EQ(r.schedules.size(), 1u);
  // 4 microbatches x 2 layers x (1 + 2) ms of compute, plus the logits GEMM of the output layer and the
  // (1-rank) collectives after the pipeline: a little above 24 ms.
  EXPECT_GE(r.schedules[0].median_ms, 24.0 * 0.999);
  EXPECT_LE(r.schedules[0].median_ms, 24.0 * 1.10);
  EXPECT_EQ(r.backend, "nccl");
}

// Per-rank compute of a 1-rank 1F1B replay with --compute gemm; layer_fwd_ns sets the GEMM passes per step.
double gemm_compute_ms(const Plan& plan, std::int64_t layer_fwd_ns) {
  ReplayComputeOptions c;
  c.kind = "gemm";
  LayerDims d;
  d.b = plan.args.micro_batch;
  d.s = plan.args.seq_length;
  d.h = plan.args.hidden;
  d.f = plan.args.ffn_hidden;
  d.heads = d.groups = plan.args.heads;
  c.layer_gemms = layer_forward_gemms(d);
  c.gemm_dtype = DType::kHalf;
  c.layer_fwd_ns = layer_fwd_ns;
  auto backend = make_backend(BackendKind::kNccl, testing::world(), 1);
  auto rt = make_nccl_replay_runtime(testing::world(), *backend, c);
  ReplayOptions o;
  o.compute.fwd_ms_per_layer = 1;
  o.compute_kind = "gemm";
  o.iterations = 3;
  o.schedule = "1f1b";
  const ReplayResult r = replay_plan(testing::world(), *backend, *rt, plan, o, nullptr, {});
  EXPECT_EQ(r.schedules.size(), 1u);
  EXPECT_GT(r.schedules.at(0).median_ms, 0);
  return r.schedules.at(0).per_rank.at(0).compute_ms;
}

TEST_F(ReplayGpu, OneRankPlanReplaysWithGemmCompute) {
  if (testing::world().size() != 1) GTEST_SKIP() << "a 1-rank plan needs 1 process, have " << testing::world().size();
  const MegatronArgs a =
      parse_megatron_args({"--num-layers", "4", "--hidden-size", "2048", "--num-attention-heads", "16", "--seq-length",
                           "1024", "--max-position-embeddings", "1024", "--micro-batch-size", "1",
                           "--global-batch-size", "4", "--world-size", "1", "--vocab-size", "128", "--fp16"});
  const Plan plan = make_plan(a, 1);
  // 1 ms per layer planned: 4 passes of the layer's GEMMs per forward step, 8 per backward step; a
  // planned layer time far above the steps' rounds every step to a single pass.
  const double many = gemm_compute_ms(plan, 1000000);
  const double one = gemm_compute_ms(plan, std::int64_t{1} << 50);
  EXPECT_GT(one, 0);
  EXPECT_GT(many, 3 * one) << "GEMM passes per step do not follow the planned step time";
}

}  // namespace
}  // namespace pipebench
