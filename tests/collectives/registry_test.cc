// SPDX-License-Identifier: Apache-2.0
#include "collectives/registry.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

// Guards against an op file dropped from the link (static registrars run only for linked objects).
TEST(OpRegistry, HoldsExactlyTheShippedOps) {
  EXPECT_EQ(OpRegistry::instance().names(),
            (std::vector<std::string>{"all_gather", "all_reduce", "alltoall", "broadcast", "gather", "pair", "reduce",
                                      "reduce_scatter", "scatter", "sendrecv"}));
}

TEST(OpRegistry, UnknownOpNamesTheFlagAndTheChoices) {
  try {
    (void)OpRegistry::instance().find("--op", "all_to_all");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--op: unknown op 'all_to_all' (one of: all_gather"), std::string::npos)
        << e.what();
  }
}

// bench --plan times a plan's send/recv with this op; a second one would make the choice ambiguous.
TEST(OpRegistry, ExactlyOneOpTimesPlanTransfers) {
  int count = 0;
  for (const auto& name : OpRegistry::instance().names()) {
    if (OpRegistry::instance().find("--op", name).times_plan_transfers()) ++count;
  }
  EXPECT_EQ(count, 1);
  EXPECT_TRUE(OpRegistry::instance().plan_transfer_op().times_plan_transfers());
}

}  // namespace
}  // namespace pipebench
