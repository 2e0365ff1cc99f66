// SPDX-License-Identifier: Apache-2.0
#include "collectives/pair.h"

#include <gtest/gtest.h>

#include "collectives/registry.h"
#include "core/error.h"

namespace pipebench {
namespace {

const Op& pair_op() { return OpRegistry::instance().find("--op", "pair"); }

TEST(ParsePairs, ReadsSrcDstLists) {
  EXPECT_EQ(parse_pairs("--pairs", "0:1,3:0"), (std::vector<RankPair>{{0, 1}, {3, 0}}));
  for (const char* bad : {"", "0", "0:", ":1", "0-1", "a:b", "0:1,", "-1:2", "0:1:2"}) {
    EXPECT_THROW((void)parse_pairs("--pairs", bad), UsageError) << bad;
  }
}

TEST(PairOp, BidirectionalAddsEveryReverse) {
  OpParams p;
  p.pairs = {{0, 1}, {2, 3}};
  p.bidirectional = true;
  EXPECT_EQ(pair_transfers(p), (std::vector<RankPair>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
}

TEST(PairOp, RejectsRanksOutOfRangeSelfPairsAndDuplicates) {
  OpParams p;
  p.pairs = {{0, 5}};
  try {
    pair_op().validate(4, p);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--pairs: pair 0:5 names a rank out of range (ranks are 0..3)"),
              std::string::npos)
        << e.what();
  }
  p.pairs = {{1, 1}};
  EXPECT_THROW(pair_op().validate(4, p), UsageError);
  p.pairs = {{0, 1}, {1, 0}};
  EXPECT_NO_THROW(pair_op().validate(4, p));
  p.bidirectional = true;
  EXPECT_THROW(pair_op().validate(4, p), UsageError);
  p.pairs.clear();
  EXPECT_THROW(pair_op().validate(4, p), UsageError);
}

TEST(PairOp, ARankReceivingTwiceGetsTwoSlots) {
  OpParams p;
  p.pairs = {{0, 2}, {1, 2}};
  const Sizing s = pair_op().sizing(1024, 4, 3, p);
  EXPECT_EQ(s.recv_bytes, 2048u);
  const DataLayout d = pair_op().layout(s, 2, 3, false, p);
  ASSERT_EQ(d.checks.size(), 2u);
  EXPECT_EQ(d.checks[0].from_rank, 0);
  EXPECT_EQ(d.checks[1].from_rank, 1);
  EXPECT_EQ(d.checks[1].elem_offset, s.count);
  EXPECT_TRUE(pair_op().layout(s, 2, 3, false, p).fills.empty());  // rank 2 sends nothing
}

TEST(PairOp, TimesAPlanTransferOneWayOrBothWays) {
  EXPECT_TRUE(pair_op().traits().is_transfer);
  const OpParams forward = pair_op().transfer_params(true, false);
  EXPECT_EQ(forward.pairs, (std::vector<RankPair>{{0, 1}}));
  EXPECT_FALSE(forward.bidirectional);
  EXPECT_EQ(pair_op().plan_label(forward), "send");
  const OpParams backward = pair_op().transfer_params(false, true);
  EXPECT_EQ(backward.pairs, (std::vector<RankPair>{{1, 0}}));
  const OpParams both = pair_op().transfer_params(true, true);
  EXPECT_TRUE(both.bidirectional);
  EXPECT_EQ(pair_op().plan_label(both), "sendrecv both");
}

TEST(PairOp, OtherOpsNeedNoPairsAndNameThemselves) {
  const Op& all_reduce = OpRegistry::instance().find("--op", "all_reduce");
  EXPECT_FALSE(all_reduce.traits().is_transfer);
  EXPECT_EQ(all_reduce.plan_label(all_reduce.transfer_params(true, true)), "all_reduce");
}

}  // namespace
}  // namespace pipebench
