// SPDX-License-Identifier: Apache-2.0
// The NCCL backend on real GPUs: every op exact on all visible GPUs (one process, -g N), CUDA-graph
// batches, a {first, last} sub-communicator, and the pair op. Skips with a reason without a GPU.
#include <gtest/gtest.h>

#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/error.h"
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
  static MeasureSettings settings() {
    MeasureSettings c;
    c.iters = 3;
    c.warmup = 2;
    c.reps = 3;
    c.checks = 2;
    return c;
  }
  SweepSpec sweep_;  // the op parameters of the points
  int gpus_ = 0;
  std::unique_ptr<Backend> backend_;
};

TEST_F(NcclGpu, EveryOpTypeAndReductionIsExact) {
  MeasureSettings c = settings();
  sweep_.params.root = gpus_ - 1;
  sweep_.params.pairs = {{0, gpus_ - 1}};
  sweep_.params.bidirectional = gpus_ > 1;
  PointRunner runner(*backend_, testing::world(), c, sweep_);
  for (const auto& name : OpRegistry::instance().names()) {
    const Op& op = OpRegistry::instance().find("--op", name);
    if (name == "pair" && gpus_ == 1) continue;  // a pair needs two ranks
    for (DType t : all_dtypes()) {
      for (RedOp r : op.traits().reduces ? std::vector<RedOp>{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}
                                         : std::vector<RedOp>{RedOp::kNone}) {
        for (std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{1000}, std::uint64_t{4} << 20}) {
          for (bool in_place : {false, true}) {
            if (in_place && !op.traits().supports_in_place) continue;
            const ResultRecord rec = runner.measure({&op, t, r, bytes, in_place});
            EXPECT_EQ(rec.wrong, 0) << name << " " << dtype_name(t) << " " << redop_name(r) << " " << bytes;
            EXPECT_EQ(rec.nranks, gpus_);
          }
        }
      }
    }
  }
}

// A group ended without waiting (the replay's asynchronous P2P) completes on wait(), and test() then says so.
TEST_F(NcclGpu, GroupEndedWithoutWaitingCompletesOnWait) {
  auto buffers = backend_->allocate(4096, 4096, BufferOptions{});
  backend_->group_begin();
  for (int l = 0; l < backend_->nlocal(); ++l) {
    backend_->all_reduce(l, buffers->send(l), buffers->recv(l), 1024, DType::kFloat, RedOp::kSum);
  }
  std::unique_ptr<PendingComm> pending = backend_->group_end_async();
  pending->wait();
  EXPECT_TRUE(pending->test());
}

TEST_F(NcclGpu, GraphBatchesAreExactAndTimed) {
  MeasureSettings c = settings();
  c.graph = true;
  c.iters = 10;
  PointRunner runner(*backend_, testing::world(), c, sweep_);
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
  MeasureSettings c = settings();
  PointRunner runner(*sub, testing::world(), c, sweep_);
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

// --alloc and -R: every allocator and registration mode gives exact results (ncclMemAlloc memory is the
// default, as in nccl-tests; -R 2 is a symmetric window and needs it).
TEST_F(NcclGpu, EveryAllocatorAndRegistrationIsExact) {
  for (BufferAlloc alloc : {BufferAlloc::kDefault, BufferAlloc::kCuda, BufferAlloc::kNcclMem}) {
    for (int reg = 0; reg <= 2; ++reg) {
      if (reg == 2 && alloc == BufferAlloc::kCuda) continue;
      MeasureSettings c = settings();
      c.buffers.alloc = alloc;
      c.buffers.registration = reg;
      PointRunner runner(*backend_, testing::world(), c, sweep_);
      for (const char* name : {"all_reduce", "alltoall", "sendrecv"}) {
        const Op& op = OpRegistry::instance().find("--op", name);
        const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 1 << 20, false});
        EXPECT_EQ(rec.wrong, 0) << name << " alloc " << static_cast<int>(alloc) << " -R " << reg;
      }
    }
  }
  BufferOptions bad;
  bad.alloc = BufferAlloc::kCuda;
  bad.registration = 2;
  EXPECT_THROW((void)backend_->allocate(1024, 1024, bad), UsageError);
}

// -m, -z and -u on the GPU: results exact. -C: at 256 MiB the host issues an op far faster than the GPU
// completes it, so the enqueue time is below the completion time.
TEST_F(NcclGpu, NcclTestsIssueAndTimingFlagsKeepResultsExact) {
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  for (int blocking = 0; blocking <= 3; ++blocking) {
    MeasureSettings c = settings();
    c.agg = 4;
    c.blocking = blocking;
    c.unalign_elems = 1;
    PointRunner runner(*backend_, testing::world(), c, sweep_);
    const ResultRecord rec = runner.measure({&op, DType::kBfloat16, RedOp::kSum, 1 << 22, true});
    EXPECT_EQ(rec.wrong, 0) << "-z " << blocking;
  }
  MeasureSettings c = settings();
  PointRunner gpu(*backend_, testing::world(), c, sweep_);
  const ResultRecord done = gpu.measure({&op, DType::kFloat, RedOp::kSum, 256u << 20, false});
  c.cputime = true;
  PointRunner host(*backend_, testing::world(), c, sweep_);
  const ResultRecord issued = host.measure({&op, DType::kFloat, RedOp::kSum, 256u << 20, false});
  EXPECT_LT(issued.time_us, done.time_us);
}

}  // namespace
}  // namespace pipebench
