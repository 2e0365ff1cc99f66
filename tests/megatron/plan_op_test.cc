// SPDX-License-Identifier: Apache-2.0
#include "megatron/plan_op.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "collectives/registry.h"

namespace pipebench {
namespace {

TEST(PlanOp, SendAndRecvAreTheP2pHalvesAndNoRegistryOp) {
  for (const char* name : {"send", "recv"}) {
    const auto op = PlanOp::find(name);
    ASSERT_TRUE(op) << name;
    EXPECT_TRUE(op->is_p2p()) << name;
    EXPECT_EQ(op->collective(), nullptr) << name;
    EXPECT_EQ(op->name(), name);
  }
  EXPECT_TRUE(PlanOp::send().is_send());
  EXPECT_TRUE(PlanOp::recv().is_recv());
  EXPECT_NE(PlanOp::send(), PlanOp::recv());
}

// Every collective Megatron issues (OpTraits::in_plans) is a plan op, its registry op kept; sendrecv (CP's ring
// shift over the whole group) is one of them, not a P2P half. Any other name is none: the registry's ops that
// Megatron never issues (the transfer op "pair", reduce, gather), a name in other case, nothing.
TEST(PlanOp, TheCollectivesAreTheRegistrysOpsThatMegatronIssues) {
  int collectives = 0;
  for (const Op* op : OpRegistry::instance().ops()) {
    const auto planned = PlanOp::find(op->name());
    EXPECT_EQ(planned.has_value(), op->traits().in_plans) << op->name();
    if (!planned) continue;
    ++collectives;
    EXPECT_FALSE(planned->is_p2p()) << op->name();
    EXPECT_EQ(planned->collective(), op);
    EXPECT_EQ(planned->name(), op->name());
    EXPECT_TRUE(planned->is(op->name()));
  }
  EXPECT_GE(collectives, 6);  // all_reduce, all_gather, reduce_scatter, broadcast, alltoall, sendrecv
  for (const char* name : {"pair", "reduce", "Send", "ALL_REDUCE", ""}) EXPECT_FALSE(PlanOp::find(name)) << name;
  EXPECT_THROW(PlanOp("pair"), std::exception);
}

TEST(PlanOp, ALiteralNameIsTheFoundOpAndNoneIsNothing) {
  EXPECT_EQ(PlanOp("all_reduce"), *PlanOp::find("all_reduce"));
  EXPECT_EQ(PlanOp("send"), PlanOp::send());
  EXPECT_NE(PlanOp("all_reduce"), PlanOp("all_gather"));
  const PlanOp none;
  EXPECT_FALSE(none.is_p2p());
  EXPECT_EQ(none.collective(), nullptr);
  EXPECT_EQ(none.name(), "");
  EXPECT_NE(none, PlanOp::send());
}

}  // namespace
}  // namespace pipebench
