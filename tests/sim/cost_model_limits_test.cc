// SPDX-License-Identifier: Apache-2.0
// Cost models: costs the simulator cannot play (infinite, negative, beyond 1000 s per message) are bad input naming
// the message, never a wrapped integer time or "0.000 ms".
#include <gtest/gtest.h>

#include <limits>

#include "collectives/registry.h"
#include "core/error.h"
#include "sim/cost_model.h"

namespace pipebench {
namespace {

// The registry's op of this name, as the cost models take it.
const Op& op_named(std::string_view name) { return OpRegistry::instance().find("op", name); }

std::string error_of(const CostModel& m, const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) {
  try {
    (void)m.cost(op_named(op), ranks, bytes);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

ResultRecord record(double time_us, std::uint64_t size_bytes) {
  ResultRecord r;
  r.op = "all_reduce";
  r.nranks = 2;
  r.ranks = {0, 1};
  r.size_bytes = size_bytes;
  r.time_us = time_us;
  return r;
}

TEST(CostModel, AnAbsurdAssumedLinkIsRefusedNamingTheMessage) {
  const AssumedCost tiny(1e-300, 0);
  EXPECT_EQ(error_of(tiny, "all_reduce", {0, 1}, 1 << 20).rfind("the cost of all_reduce on {0,1} at 1048576 B: ", 0),
            0u)
      << error_of(tiny, "all_reduce", {0, 1}, 1 << 20);
  EXPECT_NE(error_of(tiny, "all_reduce", {0, 1}, 1 << 20).find(" ms is not a duration the simulator plays"),
            std::string::npos);
  EXPECT_EQ(error_of(AssumedCost(10, 0), "all_reduce", {0, 1}, 1 << 20), "(no error)");
  EXPECT_EQ(AssumedCost(10, 0).cost(op_named("all_reduce"), {0, 1}, 1 << 20).time, 104858);  // 2^20 B at 10 GB/s, ns
}

TEST(CostModel, AnAbsurdMeasuredTimeIsRefused) {
  const MeasuredCost huge({record(1e308, 1024), record(1e307, 4096)}, Placement(), "t.json");
  const std::string e = error_of(huge, "all_reduce", {0, 1}, 2048);
  EXPECT_NE(e.find("is not a duration the simulator plays (0 to 1e+06 ms)"), std::string::npos) << e;
  EXPECT_LT(e.size(), 200u) << e;  // %g, never 309 digits
}

TEST(CostModel, CheckedNanosecondsRefuseNanInfAndNegative) {
  EXPECT_EQ(checked_ns_from_ms(1.5, "x"), 1500000);
  EXPECT_THROW((void)checked_ns_from_ms(std::numeric_limits<double>::quiet_NaN(), "x"), UsageError);
  EXPECT_THROW((void)checked_ns_from_ms(std::numeric_limits<double>::infinity(), "x"), UsageError);
  EXPECT_THROW((void)checked_ns_from_ms(-1, "x"), UsageError);
  EXPECT_THROW((void)checked_ns_from_ms(kMaxTaskMs * 2, "x"), UsageError);
}

}  // namespace
}  // namespace pipebench
