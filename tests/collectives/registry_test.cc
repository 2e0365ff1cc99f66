// SPDX-License-Identifier: Apache-2.0
#include "collectives/registry.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

// Guards against an op file dropped from the link (static registrars run only for linked objects).
TEST(OpRegistry, HoldsExactlyTheShippedOps) {
  EXPECT_EQ(OpRegistry::instance().names(),
            (std::vector<std::string>{"all_gather", "all_reduce", "broadcast", "pair", "reduce_scatter", "sendrecv"}));
}

TEST(OpRegistry, UnknownOpNamesTheFlagAndTheChoices) {
  try {
    (void)OpRegistry::instance().find("--op", "alltoall");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--op: unknown op 'alltoall' (one of: all_gather"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pipebench
