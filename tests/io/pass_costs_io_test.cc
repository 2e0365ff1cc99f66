// SPDX-License-Identifier: Apache-2.0
// The pass costs a results file records, read back: every term as written, and a bad value is one line
// naming the file and the field.
#include "io/pass_costs_io.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "core/error.h"
#include "io/results_io.h"

namespace pipebench {
namespace {

using nlohmann::json;

Stats term(double min_us, double median_us, double max_us) {
  Stats s;
  s.samples = 50;
  s.min_us = min_us;
  s.median_us = median_us;
  s.max_us = max_us;
  return s;
}

PassCosts sample() {
  PassCosts c;
  c.gpu = "NVIDIA H100 80GB HBM3";
  c.p2p_bytes = 8 << 20;
  c.device_max_connections = "1";
  c.call_device_us = term(18.5, 20, 31);
  c.call_host_us = term(40, 45, 90);
  c.sync_gap_us = term(21, 25, 60);
  c.gemm_alone_us = term(990, 1000, 1100);
  c.gemm_beside_nccl_us = term(1200, 1250, 1400);
  c.nccl_beside_us = 1500;
  return c;
}

void expect_same(const Stats& a, const Stats& b, const char* what) {
  EXPECT_EQ(a.samples, b.samples) << what;
  EXPECT_EQ(a.min_us, b.min_us) << what;
  EXPECT_EQ(a.median_us, b.median_us) << what;
  EXPECT_EQ(a.max_us, b.max_us) << what;
}

// A results file holding the block, read as predict --table reads it.
json results_with(const json& pass_costs) {
  return {{"schema", kResultsSchema}, {"records", json::array()}, {"pass_costs", pass_costs}};
}

std::string error_of(const json& pass_costs) {
  try {
    (void)results_from_json(results_with(pass_costs), "--table r.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PassCostsIo, EveryTermReadsBackAsWritten) {
  const PassCosts in = sample();
  const ResultSet rs = results_from_json(results_with(pass_costs_to_json(in)), "r.json");
  ASSERT_TRUE(rs.pass_costs.has_value());
  const PassCosts& out = *rs.pass_costs;
  EXPECT_EQ(out.gpu, in.gpu);
  EXPECT_EQ(out.p2p_bytes, in.p2p_bytes);
  EXPECT_EQ(out.device_max_connections, "1");
  expect_same(out.call_device_us, in.call_device_us, "call_device_us");
  expect_same(out.call_host_us, in.call_host_us, "call_host_us");
  expect_same(out.sync_gap_us, in.sync_gap_us, "sync_gap_us");
  expect_same(out.gemm_alone_us, in.gemm_alone_us, "gemm_alone_us");
  expect_same(out.gemm_beside_nccl_us, in.gemm_beside_nccl_us, "gemm_beside_nccl_us");
  EXPECT_EQ(out.nccl_beside_us, 1500);
  EXPECT_DOUBLE_EQ(out.comm_sm_slowdown(), 0.25);
}

TEST(PassCostsIo, AnUnsetConnectionCountIsNullAndAFileWithoutTheBlockHasNone) {
  PassCosts in = sample();
  in.device_max_connections.clear();
  const json j = pass_costs_to_json(in);
  EXPECT_TRUE(j.at("device_max_connections").is_null());
  EXPECT_EQ(results_from_json(results_with(j), "r.json").pass_costs->device_max_connections, "");
  const json none = {{"schema", kResultsSchema}, {"records", json::array()}};
  EXPECT_FALSE(results_from_json(none, "r.json").pass_costs.has_value());
}

TEST(PassCostsIo, ABadValueIsOneLineNamingTheFileAndTheField) {
  const json good = pass_costs_to_json(sample());
  json j = good;
  j["sync_gap_us"]["median_us"] = -1;
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.sync_gap_us.median_us\" is not a finite number >= 0");
  j = good;
  j["gemm_alone_us"]["max_us"] = "fast";
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.gemm_alone_us.max_us\" is not a number");
  j = good;
  j["call_host_us"]["min_us"] = 100;  // above its median
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.call_host_us\" is not min_us <= median_us <= max_us");
  j = good;
  j["sync_gap_us"]["samples"] = 0;
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.sync_gap_us.samples\" is 0, outside [1, 1073741824]");
  j = good;
  j["nccl_beside_us"] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.nccl_beside_us\" is not a finite number >= 0");
  j = good;
  j.erase("gpu");
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.gpu\" is missing");
  j = good;
  j["p2p_bytes"] = 0;
  EXPECT_EQ(error_of(j), "--table r.json: \"pass_costs.p2p_bytes\" is 0, outside [1, 9223372036854775807]");
  EXPECT_EQ(error_of(json::array()), "--table r.json: \"pass_costs\" is not an object");
}

}  // namespace
}  // namespace pipebench
