// SPDX-License-Identifier: Apache-2.0
// Pins every op's size/count columns and busbw factor to nccl-tests' definitions
// (shared reference: nccl-tests §2.2), so our rows compare 1:1 with theirs.
#include <gtest/gtest.h>

#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {
namespace {

const Op& op(const char* name) { return OpRegistry::instance().find("--op", name); }

TEST(AllReduceOp, BusBwFactorIsTwoNMinusOneOverN) {
  EXPECT_DOUBLE_EQ(op("all_reduce").bus_bw_factor(1), 0.0);
  EXPECT_DOUBLE_EQ(op("all_reduce").bus_bw_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(op("all_reduce").bus_bw_factor(8), 1.75);
}

TEST(AllReduceOp, SizeIsTheCountTimesTheElement) {
  const Sizing s = op("all_reduce").sizing(1 << 20, 4, 8, {});
  EXPECT_EQ(s.count, 262144u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.send_bytes, 1u << 20);
  const Sizing odd = op("all_reduce").sizing(10, 4, 2, {});  // 10 B of float: 2 elements
  EXPECT_EQ(odd.count, 2u);
  EXPECT_EQ(odd.size_bytes, 8u);
}

TEST(AllGatherOp, SizeIsTheWholeOutputAndCountIsPerRank) {
  const Sizing s = op("all_gather").sizing(1 << 20, 4, 8, {});
  EXPECT_EQ(s.count, 32768u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.send_bytes, 128u * 1024);
  EXPECT_EQ(s.recv_bytes, 1u << 20);
  EXPECT_DOUBLE_EQ(op("all_gather").bus_bw_factor(8), 7.0 / 8);
}

TEST(AllGatherOp, PerRankCountRoundsDownToSixteenBytes) {
  // nccl-tests: `all_gather_perf -b 8` prints a 0-byte first row.
  EXPECT_EQ(op("all_gather").sizing(8, 4, 2, {}).size_bytes, 0u);
  // 1000 B float, n=3: 250/3 = 83 -> 80 (multiple of 4 floats) -> 960 B.
  const Sizing s = op("all_gather").sizing(1000, 4, 3, {});
  EXPECT_EQ(s.count, 80u);
  EXPECT_EQ(s.size_bytes, 960u);
  // int8: multiples of 16 elements.
  EXPECT_EQ(op("all_gather").sizing(100, 1, 2, {}).count, 48u);
  // double: multiples of 2 elements.
  EXPECT_EQ(op("all_gather").sizing(56, 8, 1, {}).count, 6u);
}

TEST(ReduceScatterOp, SizeIsTheWholeInputAndCountIsPerRank) {
  const Sizing s = op("reduce_scatter").sizing(1 << 20, 2, 4, {});
  EXPECT_EQ(s.count, 131072u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.recv_bytes, 1u << 20);  // in place, the input lives in the receive buffer
  EXPECT_DOUBLE_EQ(op("reduce_scatter").bus_bw_factor(4), 0.75);
}

TEST(BroadcastSendRecvPairOps, BusBwFactorIsOne) {
  for (const char* name : {"broadcast", "sendrecv", "pair"}) {
    EXPECT_DOUBLE_EQ(op(name).bus_bw_factor(8), 1.0) << name;
  }
}

TEST(SendRecvOp, HasNoInPlaceFormAndReceivesFromTheLeftNeighbour) {
  EXPECT_FALSE(op("sendrecv").traits().supports_in_place);
  const Sizing s = op("sendrecv").sizing(64, 4, 4, {});
  const DataLayout d = op("sendrecv").layout(s, 0, 4, false, {});
  ASSERT_EQ(d.checks.size(), 1u);
  EXPECT_EQ(d.checks[0].from_rank, 3);
}

TEST(ReduceScatterOp, InPlaceResultSitsAtTheRanksBlock) {
  const Sizing s = op("reduce_scatter").sizing(1024, 4, 4, {});
  const DataLayout in = op("reduce_scatter").layout(s, 2, 4, true, {});
  ASSERT_EQ(in.checks.size(), 1u);
  EXPECT_EQ(in.checks[0].elem_offset, 2 * s.count);
  EXPECT_EQ(in.checks[0].index_base, 2 * s.count);
  const DataLayout out = op("reduce_scatter").layout(s, 2, 4, false, {});
  EXPECT_EQ(out.checks[0].elem_offset, 0u);
  EXPECT_EQ(out.checks[0].index_base, 2 * s.count);
}

TEST(BroadcastOp, OnlyTheRootFillsAndEveryRankChecksTheRootsData) {
  OpParams p;
  p.root = 2;
  const Sizing s = op("broadcast").sizing(64, 4, 4, p);
  EXPECT_TRUE(op("broadcast").layout(s, 1, 4, false, p).fills.empty());
  EXPECT_EQ(op("broadcast").layout(s, 2, 4, false, p).fills.size(), 1u);
  EXPECT_EQ(op("broadcast").layout(s, 1, 4, false, p).checks[0].from_rank, 2);
  EXPECT_THROW(op("broadcast").validate(2, p), UsageError);
}

TEST(AllToAllOp, SizeIsOneRanksBufferAndCountIsPerPeer) {
  // nccl-tests AlltoAllGetCollByteCount: count = (S/e/n) rounded to 16 B, buffers n*count.
  const Sizing s = op("alltoall").sizing(1 << 20, 4, 8, {});
  EXPECT_EQ(s.count, 32768u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.send_bytes, 1u << 20);
  EXPECT_EQ(s.recv_bytes, 1u << 20);
  EXPECT_EQ(op("alltoall").sizing(1000, 4, 3, {}).size_bytes, 960u);
  EXPECT_DOUBLE_EQ(op("alltoall").bus_bw_factor(8), 7.0 / 8);
  EXPECT_FALSE(op("alltoall").traits().supports_in_place);  // nccl-tests prints N/A
}

TEST(AllToAllOp, BlockIOfTheOutputHoldsRankIsBlockForThisRank) {
  const Sizing s = op("alltoall").sizing(4096, 4, 4, {});
  const DataLayout d = op("alltoall").layout(s, 2, 4, false, {});
  ASSERT_EQ(d.fills.size(), 1u);
  EXPECT_EQ(d.fills[0].count, 4 * s.count);
  ASSERT_EQ(d.checks.size(), 4u);
  for (int src = 0; src < 4; ++src) {
    EXPECT_EQ(d.checks[src].from_rank, src);
    EXPECT_EQ(d.checks[src].elem_offset, src * s.count);
    EXPECT_EQ(d.checks[src].index_base, 2 * s.count);  // what src sent to rank 2
  }
}

TEST(ReduceOp, SizeIsTheCountAndBusBwFactorIsOne) {
  const Sizing s = op("reduce").sizing(1000, 8, 4, {});
  EXPECT_EQ(s.count, 125u);
  EXPECT_EQ(s.size_bytes, 1000u);
  EXPECT_DOUBLE_EQ(op("reduce").bus_bw_factor(8), 1.0);
  EXPECT_TRUE(op("reduce").traits().reduces);
}

TEST(ReduceOp, OnlyTheRootChecksTheReduction) {
  OpParams p;
  p.root = 1;
  const Sizing s = op("reduce").sizing(64, 4, 4, p);
  EXPECT_TRUE(op("reduce").layout(s, 0, 4, false, p).checks.empty());
  const DataLayout root = op("reduce").layout(s, 1, 4, true, p);
  ASSERT_EQ(root.checks.size(), 1u);
  EXPECT_TRUE(root.checks[0].reduced);
  EXPECT_EQ(root.fills[0].buffer, BufferRole::kRecv);
}

TEST(GatherOp, SizeIsTheRootsOutputAndCountIsPerRank) {
  const Sizing s = op("gather").sizing(1 << 20, 4, 8, {});
  EXPECT_EQ(s.count, 32768u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.send_bytes, 128u * 1024);
  EXPECT_EQ(s.recv_bytes, 1u << 20);
  EXPECT_EQ(op("gather").sizing(8, 4, 2, {}).size_bytes, 0u);
  EXPECT_DOUBLE_EQ(op("gather").bus_bw_factor(4), 0.75);
}

TEST(GatherOp, TheRootChecksEveryBlockAndInPlaceInputSitsAtTheRanksBlock) {
  OpParams p;
  p.root = 3;
  const Sizing s = op("gather").sizing(4096, 4, 4, p);
  EXPECT_TRUE(op("gather").layout(s, 0, 4, false, p).checks.empty());
  const DataLayout in = op("gather").layout(s, 2, 4, true, p);
  EXPECT_EQ(in.fills[0].buffer, BufferRole::kRecv);
  EXPECT_EQ(in.fills[0].elem_offset, 2 * s.count);
  const DataLayout root = op("gather").layout(s, 3, 4, false, p);
  ASSERT_EQ(root.checks.size(), 4u);
  EXPECT_EQ(root.checks[1].from_rank, 1);
  EXPECT_EQ(root.checks[1].elem_offset, s.count);
}

TEST(ScatterOp, SizeIsTheRootsInputAndCountIsPerRank) {
  const Sizing s = op("scatter").sizing(1 << 20, 2, 4, {});
  EXPECT_EQ(s.count, 131072u);
  EXPECT_EQ(s.size_bytes, 1u << 20);
  EXPECT_EQ(s.send_bytes, 1u << 20);
  EXPECT_EQ(s.recv_bytes, 1u << 20);  // in place, the input lives in the receive buffer
  EXPECT_DOUBLE_EQ(op("scatter").bus_bw_factor(2), 0.5);
}

TEST(ScatterOp, OnlyTheRootFillsAndEachRankChecksItsBlockOfTheRootsData) {
  OpParams p;
  p.root = 0;
  const Sizing s = op("scatter").sizing(4096, 4, 4, p);
  EXPECT_TRUE(op("scatter").layout(s, 2, 4, false, p).fills.empty());
  EXPECT_EQ(op("scatter").layout(s, 0, 4, false, p).fills.at(0).count, 4 * s.count);
  const DataLayout out = op("scatter").layout(s, 2, 4, false, p);
  EXPECT_EQ(out.checks.at(0).elem_offset, 0u);
  EXPECT_EQ(out.checks.at(0).index_base, 2 * s.count);
  EXPECT_EQ(out.checks.at(0).from_rank, 0);
  EXPECT_EQ(op("scatter").layout(s, 2, 4, true, p).checks.at(0).elem_offset, 2 * s.count);
}

TEST(RootedOps, RejectARootOutOfRange) {
  OpParams p;
  p.root = 4;
  for (const char* name : {"broadcast", "reduce", "gather", "scatter"}) {
    EXPECT_TRUE(op(name).traits().has_root) << name;
    EXPECT_THROW(op(name).validate(4, p), UsageError) << name;
    EXPECT_NO_THROW(op(name).validate(5, p)) << name;
  }
}

}  // namespace
}  // namespace pipebench
