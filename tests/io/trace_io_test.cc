// SPDX-License-Identifier: Apache-2.0
// pipebench.trace/1: round trip and bad-file messages.
#include "io/trace_io.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "trace/kineto_reader.h"

namespace pipebench {
namespace {

using nlohmann::json;

json traced(bool by_nvtx) {
  TraceOptions o;
  o.by_nvtx = by_nvtx;
  const TraceProfile p = read_kineto_json(std::string(TEST_DATA_DIR) + "/trace/kineto_allreduce_1gpu.json", o);
  return trace_to_json(trace_file(p, nullptr));
}

std::string error_of(const json& j) {
  try {
    (void)trace_from_json(j, "--trace t.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TraceIo, RoundTripGivesTheSameJson) {
  for (const bool by_nvtx : {false, true}) {
    const json first = traced(by_nvtx);
    ASSERT_FALSE(first["devices"].empty());
    ASSERT_FALSE(first["devices"][0]["kernels"].empty());
    ASSERT_FALSE(first["devices"][0]["collectives"].empty());  // the round trip covers collectives too
    const TraceFile back = trace_from_json(first, "test");
    EXPECT_EQ(trace_to_json(back), first);
    EXPECT_FALSE(back.plan_check);
  }
}

TEST(TraceIo, PlanCheckAndRanksComeBack) {
  json j = traced(false);
  const int device = j["devices"][0]["device"];
  TraceOptions o;
  const TraceProfile p = read_kineto_json(std::string(TEST_DATA_DIR) + "/trace/kineto_allreduce_1gpu.json", o);
  PlanCheck check;
  check.schedule = {"1f1b", 1};
  check.ranks.push_back(RankCheck{7, device, true, {}, 0, 0.5, std::nullopt});
  const TraceFile t = trace_file(p, &check);
  ASSERT_TRUE(t.devices[0].rank);
  EXPECT_EQ(*t.devices[0].rank, 7);
  const json written = trace_to_json(t);
  EXPECT_EQ(written["plan_check"], plan_check_to_json(check));
  EXPECT_EQ(trace_to_json(trace_from_json(written, "test")), written);
}

TEST(TraceIo, BadFilesAreNamedByFileAndField) {
  EXPECT_EQ(error_of(json{{"schema", "pipebench.plan/1"}}),
            "--trace t.json: schema \"pipebench.plan/1\" is not pipebench.trace/1");
  EXPECT_EQ(error_of(json::array()), "--trace t.json: not a pipebench trace (no \"schema\")");
  json j = traced(false);
  j["devices"][0]["kernels"][0].erase("total_us");
  EXPECT_EQ(error_of(j), "--trace t.json: \"devices[0].kernels[0].total_us\" is missing");
  j = traced(false);
  j["devices"][0]["collectives"][0]["elements"] = "many";
  EXPECT_EQ(error_of(j), "--trace t.json: \"devices[0].collectives[0].elements\" is not a 64-bit integer");
  j = traced(false);
  j["nvtx"]["ranges"] = 1.5;
  EXPECT_EQ(error_of(j), "--trace t.json: \"nvtx.ranges\" is not a 64-bit integer");
  j = traced(false);
  j["plan_check"] = 3;
  EXPECT_EQ(error_of(j), "--trace t.json: \"plan_check\" is not an object");
}

}  // namespace
}  // namespace pipebench
