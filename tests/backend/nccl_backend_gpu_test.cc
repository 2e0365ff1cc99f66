// SPDX-License-Identifier: Apache-2.0
// The NCCL backend on real GPUs: every op exact on all visible GPUs (one process, -g N), CUDA-graph
// batches, a {first, last} sub-communicator, and the pair op. Skips with a reason without a GPU.
#include <gtest/gtest.h>

#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "harness/point_runner.h"
#include "test_world.h"

namespace pipebench {
namespace {

class NcclGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpus_ = visible_gpus(&why);
    if (gpus_ == 0) GTEST_SKIP() << "no GPU: " << why;
    backend_ = make_backend(BackendKind::kNccl, testing::world(), gpus_);
  }
  static BenchConfig config() {
    BenchConfig c;
    c.iters = 3;
    c.warmup = 2;
    c.reps = 3;
    c.checks = 2;
    return c;
  }
  int gpus_ = 0;
  std::unique_ptr<Backend> backend_;
};

TEST_F(NcclGpu, EveryOpTypeAndReductionIsExact) {
  BenchConfig c = config();
  c.params.root = gpus_ - 1;
  c.params.pairs = {{0, gpus_ - 1}};
  c.params.bidirectional = gpus_ > 1;
  PointRunner runner(*backend_, testing::world(), c);
  for (const auto& name : OpRegistry::instance().names()) {
    const Op& op = OpRegistry::instance().find("--op", name);
    if (name == "pair" && gpus_ == 1) continue;  // a pair needs two ranks
    for (DType t : all_dtypes()) {
      for (RedOp r : op.reduces() ? std::vector<RedOp>{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}
                                  : std::vector<RedOp>{RedOp::kNone}) {
        for (std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{1000}, std::uint64_t{4} << 20}) {
          for (bool in_place : {false, true}) {
            if (in_place && !op.supports_in_place()) continue;
            const ResultRecord rec = runner.measure({&op, t, r, bytes, in_place});
            EXPECT_EQ(rec.wrong, 0) << name << " " << dtype_name(t) << " " << redop_name(r) << " " << bytes;
            EXPECT_EQ(rec.nranks, gpus_);
          }
        }
      }
    }
  }
}

TEST_F(NcclGpu, GraphBatchesAreExactAndTimed) {
  BenchConfig c = config();
  c.graph = true;
  c.iters = 10;
  PointRunner runner(*backend_, testing::world(), c);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const ResultRecord rec = runner.measure({&op, DType::kBfloat16, RedOp::kSum, 1 << 20, false});
  EXPECT_EQ(rec.wrong, 0);
  EXPECT_TRUE(rec.graph);
  EXPECT_GT(rec.time_us, 0.0);
}

TEST_F(NcclGpu, SplitOfFirstAndLastRank) {
  const std::vector<int> members = gpus_ > 1 ? std::vector<int>{0, gpus_ - 1} : std::vector<int>{0};
  auto sub = backend_->split(members);
  EXPECT_EQ(sub->nranks(), static_cast<int>(members.size()));
  BenchConfig c = config();
  PointRunner runner(*sub, testing::world(), c);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 1 << 16, false});
  EXPECT_EQ(rec.wrong, 0);
  EXPECT_EQ(rec.ranks, members);
}

TEST_F(NcclGpu, DevicesAndVersionsAreReported) {
  const auto devices = backend_->devices();
  ASSERT_EQ(static_cast<int>(devices.size()), gpus_);
  EXPECT_FALSE(devices[0].model.empty());
  EXPECT_FALSE(devices[0].bus_id.empty());
  EXPECT_EQ(backend_->versions().count("nccl"), 1u);
  EXPECT_GT(backend_->free_memory_bytes(), 0u);
}

}  // namespace
}  // namespace pipebench
