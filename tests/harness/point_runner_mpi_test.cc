// SPDX-License-Identifier: Apache-2.0
// Every op on the real MPI backend with real processes (mpirun -np 2 and -np 4): results exact.
#include <gtest/gtest.h>

#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/split_expr.h"
#include "harness/point_runner.h"
#include "test_world.h"

namespace pipebench {
namespace {

const World& W() { return testing::world(); }

MeasureSettings small_settings() {
  MeasureSettings c;
  c.iters = 2;
  c.warmup = 1;
  c.reps = 2;
  c.checks = 2;
  return c;
}

struct Case {
  const char* op;
  DType dtype;
  RedOp redop;
};

TEST(PointRunnerMpi, EveryOpTypeAndReductionIsExact) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  MeasureSettings c = small_settings();
  SweepSpec sweep;
  sweep.params.root = W().size() - 1;
  sweep.params.pairs = {{0, W().size() - 1}};
  sweep.params.bidirectional = true;
  PointRunner runner(*backend, W(), c, sweep);
  for (const auto& name : OpRegistry::instance().names()) {
    const Op& op = OpRegistry::instance().find("--op", name);
    for (DType t : {DType::kFloat, DType::kHalf, DType::kBfloat16, DType::kInt8, DType::kUint64, DType::kDouble}) {
      for (RedOp r : op.traits().reduces ? std::vector<RedOp>{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin}
                                         : std::vector<RedOp>{RedOp::kNone}) {
        for (std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{1000}, std::uint64_t{262144}}) {
          for (bool in_place : {false, true}) {
            if (in_place && !op.traits().supports_in_place) continue;
            const ResultRecord rec = runner.measure({&op, t, r, bytes, in_place});
            EXPECT_EQ(rec.wrong, 0) << name << " " << dtype_name(t) << " " << redop_name(r) << " " << bytes
                                    << (in_place ? " in-place" : "");
            EXPECT_EQ(rec.stats.samples, 2u);
            EXPECT_EQ(rec.nranks, W().size());
            if (rec.size_bytes > 0) {
              EXPECT_GT(rec.time_us, 0.0);
            }
          }
        }
      }
    }
  }
}

TEST(PointRunnerMpi, TheCheckSeesCorruptedResults) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const Sizing s = op.sizing(4096, 4, backend->nranks(), {});
  auto buffers = backend->allocate(s.send_bytes, s.recv_bytes, {});
  const Pattern p = make_pattern(DType::kFloat, RedOp::kSum, backend->nranks(), 3);
  const DataLayout d = op.layout(s, backend->rank_of(0), backend->nranks(), false, {});
  for (const auto& f : d.fills) backend->fill(*buffers, 0, f, p, DType::kFloat);
  op.issue(*backend, 0, {*buffers, s, DType::kFloat, RedOp::kSum, false, {}});
  if (W().rank() == 0) static_cast<float*>(buffers->recv(0))[17] += 1.0f;
  std::uint64_t wrong = backend->count_wrong(*buffers, 0, d.checks[0], p, DType::kFloat);
  EXPECT_EQ(W().sum(wrong), 1u);
}

TEST(PointRunnerMpi, SplitGroupOfFirstAndLastRankReducesOnlyThem) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  const std::vector<int> members = {0, W().size() - 1};
  auto sub = backend->split(W().size() > 1 ? members : std::vector<int>{0});
  const bool member = W().rank() == 0 || W().rank() == W().size() - 1;
  EXPECT_EQ(sub->nlocal(), member ? 1 : 0);
  MeasureSettings c = small_settings();
  const SweepSpec sweep;
  PointRunner runner(*sub, W(), c, sweep);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 1 << 16, false});
  EXPECT_EQ(rec.wrong, 0);
  EXPECT_EQ(rec.nranks, W().size() > 1 ? 2 : 1);
  EXPECT_EQ(rec.ranks.back(), W().size() - 1);
}

TEST(PointRunnerMpi, TimeBudgetShrinksTheBatchIdenticallyOnEveryRank) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  MeasureSettings c = small_settings();
  const SweepSpec sweep;
  c.iters = 1000;
  c.warmup = 2;
  c.point_budget_s = 1e-6;
  PointRunner runner(*backend, W(), c, sweep);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 1 << 20, false});
  EXPECT_EQ(rec.ops_per_batch, 1);
  EXPECT_EQ(W().max(rec.ops_per_batch), W().min(rec.ops_per_batch));
}

TEST(PointRunnerMpi, RankStatisticCombinesTheProcessesTimes) {
  const int n = W().size();
  const double mine = W().rank() + 1.0;
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, true, RankStat::kMax), n);
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, true, RankStat::kMin), 1.0);
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, true, RankStat::kMean), (n + 1) / 2.0);
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, true, RankStat::kRank0), 1.0);
  if (n < 2) return;
  // Rank 0 holds no member: it is left out of every statistic.
  const bool member = W().rank() != 0;
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, member, RankStat::kMin), 2.0);
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, member, RankStat::kRank0), 2.0);
  EXPECT_DOUBLE_EQ(combine_over_ranks(W(), mine, member, RankStat::kMean), (n + 2) / 2.0);
}

// -m, -z (every mode), -u, -C and -K change how ops are issued and timed, never the results.
TEST(PointRunnerMpi, NcclTestsIssueAndTimingFlagsKeepResultsExact) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  for (int blocking = 0; blocking <= 3; ++blocking) {
    MeasureSettings c = small_settings();
    SweepSpec sweep;
    c.agg = 3;
    c.iters = 2;
    c.reps = 4;
    c.per_iter_skip = 1;
    c.blocking = blocking;
    c.unalign_elems = 3;
    c.cputime = blocking == 2;
    c.rank_stat = static_cast<RankStat>(blocking);
    sweep.params.root = W().size() - 1;
    PointRunner runner(*backend, W(), c, sweep);
    for (const char* name : {"all_reduce", "alltoall", "reduce", "scatter"}) {
      const Op& op = OpRegistry::instance().find("--op", name);
      for (bool in_place : {false, true}) {
        if (in_place && !op.traits().supports_in_place) continue;
        const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 4096, in_place});
        EXPECT_EQ(rec.wrong, 0) << name << " -z " << blocking << (in_place ? " in-place" : "");
        EXPECT_EQ(rec.stats.samples, 3u);  // 4 reps, the first left out (-K 1)
        EXPECT_GT(rec.time_us, 0.0);
      }
    }
  }
  MeasureSettings shifted = small_settings();
  shifted.unalign_elems = 3;
  EXPECT_EQ(PointRunner::unalign_margin_bytes(shifted), 24u);  // room for 3 elements of the widest type
}

// --split MOD 2 (nccl-tests NCCL_TESTS_SPLIT): at np 4 two groups of two ranks run at once, each exact,
// each record naming its own group.
TEST(PointRunnerMpi, SplitModTwoRunsBothGroupsAtOnce) {
  auto backend = make_backend(BackendKind::kMpi, W(), 1);
  const auto groups = split_groups(parse_split_expr("--split", "MOD 2"), W().size());
  const auto& mine = groups[static_cast<std::size_t>(W().rank() % 2)];
  auto sub = backend->split(mine);
  EXPECT_EQ(sub->nlocal(), 1);
  EXPECT_EQ(sub->nranks(), static_cast<int>(mine.size()));
  MeasureSettings c = small_settings();
  const SweepSpec sweep;
  PointRunner runner(*sub, W(), c, sweep);
  for (const char* name : {"all_reduce", "alltoall", "gather"}) {
    const Op& op = OpRegistry::instance().find("--op", name);
    const ResultRecord rec = runner.measure({&op, DType::kInt32, RedOp::kSum, 1 << 14, false});
    EXPECT_EQ(rec.wrong, 0) << name;
    EXPECT_EQ(rec.ranks, mine) << name;
    EXPECT_DOUBLE_EQ(rec.busbw_gbps, rec.algbw_gbps * op.bus_bw_factor(static_cast<int>(mine.size()))) << name;
  }
  if (W().size() == 4) {
    EXPECT_EQ(groups, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  }
}

}  // namespace
}  // namespace pipebench
