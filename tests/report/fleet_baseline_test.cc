// SPDX-License-Identifier: Apache-2.0
// Fleet baselines: median and spread per fingerprint, and a slower node named against them.
#include "report/fleet_baseline.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "report/report_fixture.h"

namespace pipebench {
namespace {

using testing::make_host;

TEST(FleetBaseline, MedianAndSpreadPerPoint) {
  const FleetBaseline b = make_fleet_baseline({make_host("a", 400), make_host("b", 410), make_host("c", 380)});
  ASSERT_EQ(b.points.size(), 6U);  // 1K, 4K, ..., 1M of make_host
  const FleetPoint& top = b.points.back();
  EXPECT_EQ(top.size_bytes, 1U << 20);
  EXPECT_EQ(top.op, "all_reduce");
  EXPECT_EQ(top.gpu_model, "NVIDIA H100");
  EXPECT_EQ(top.nccl, "2.28.3");
  EXPECT_EQ(top.driver, "13.0");
  EXPECT_EQ(top.samples, 3);
  EXPECT_DOUBLE_EQ(top.median_gbps, 400);
  EXPECT_DOUBLE_EQ(top.min_gbps, 380);
  EXPECT_DOUBLE_EQ(top.max_gbps, 410);
  EXPECT_NEAR(top.spread_gbps, 1.4826 * 10, 1e-9);  // deviations 0, 10, 20: MAD 10
}

TEST(FleetBaseline, FailedPointsAreLeftOutAndNoneIsAnError) {
  auto a = make_host("a", 400);
  for (auto& r : a.doc.records) r.error = "timeout";
  EXPECT_THROW((void)make_fleet_baseline({a}), UsageError);
  a.doc.records.front().error.clear();
  EXPECT_EQ(make_fleet_baseline({a}).points.size(), 1U);
}

TEST(FleetBaseline, AnotherFingerprintIsAnotherPoint) {
  auto other = make_host("d", 400);
  other.doc.system.versions["nccl"] = "2.19.3";
  const FleetBaseline b = make_fleet_baseline({make_host("a", 400), other});
  EXPECT_EQ(b.points.size(), 12U);
}

TEST(FleetBaseline, ASlowerNodeIsNamed) {
  FleetBaseline b = make_fleet_baseline({make_host("a", 400), make_host("b", 410), make_host("c", 380)});
  b.path = "fleet.json";
  const RuleOutcome ok = check_fleet_baseline({make_host("d", 395)}, b, 3.0);
  EXPECT_EQ(ok.status, Status::kPass) << ok.message;
  EXPECT_EQ(ok.checked, 6U);
  const RuleOutcome slow = check_fleet_baseline({make_host("slow", 300)}, b, 3.0);
  EXPECT_EQ(slow.status, Status::kFail);
  EXPECT_EQ(slow.name, "fleet-baseline");
  std::size_t failed = 0;
  for (const auto& p : slow.points) {
    if (p.status != Status::kFail) continue;
    ++failed;
    EXPECT_EQ(p.host, "slow");
    EXPECT_NE(p.note.find("on host slow"), std::string::npos) << p.note;
    EXPECT_LT(*p.value, *p.limit);
  }
  EXPECT_EQ(failed, 6U);  // every size is 25 % slower
  EXPECT_NE(slow.message.find("fleet.json: 6 of 6 points below"), std::string::npos) << slow.message;
}

TEST(FleetBaseline, IdenticalNodesNeedMoreThanFivePercent) {
  const FleetBaseline b = make_fleet_baseline({make_host("a", 400), make_host("b", 400), make_host("c", 400)});
  EXPECT_EQ(check_fleet_baseline({make_host("d", 390)}, b, 3.0).status, Status::kPass);  // 2.5 % below, spread 0
  EXPECT_EQ(check_fleet_baseline({make_host("d", 370)}, b, 3.0).status, Status::kFail);  // 7.5 % below
}

TEST(FleetBaseline, APointOutsideTheBaselineIsAWarning) {
  const FleetBaseline b = make_fleet_baseline({make_host("a", 400)});
  const RuleOutcome o = check_fleet_baseline({make_host("d", 400, 4)}, b, 3.0);  // 4 ranks: not in it
  EXPECT_EQ(o.status, Status::kWarn);
  ASSERT_FALSE(o.points.empty());
  EXPECT_NE(o.points.front().note.find("not in the baseline: all_reduce float sum 1K n=4"), std::string::npos)
      << o.points.front().note;
}

}  // namespace
}  // namespace pipebench
