// SPDX-License-Identifier: Apache-2.0
// pipebench.baseline/1: what is written reads back, and each damaged field is named.
#include "io/baseline_io.h"

#include <gtest/gtest.h>

#include <functional>

#include "core/error.h"

namespace pipebench {
namespace {

FleetBaseline sample() {
  FleetBaseline b;
  FleetPoint p;
  p.op = "all_reduce";
  p.dtype = "float";
  p.redop = "sum";
  p.in_place = true;
  p.size_bytes = std::uint64_t{1} << 30;
  p.nranks = 8;
  p.link_class = "NV18";
  p.gpu_model = "NVIDIA H100";
  p.nccl = "2.28.3";
  p.driver = "13.0";
  p.median_gbps = 370;
  p.spread_gbps = 4.5;
  p.min_gbps = 360;
  p.max_gbps = 380;
  p.samples = 12;
  b.points.push_back(p);
  return b;
}

std::string error_of(const nlohmann::json& doc) {
  try {
    (void)baseline_from_json(doc, "--baseline b.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(BaselineIo, RoundTrip) {
  const nlohmann::json j = baseline_to_json(sample());
  EXPECT_EQ(j["schema"], kBaselineSchema);
  const FleetBaseline back = baseline_from_json(j, "x");
  ASSERT_EQ(back.points.size(), 1U);
  const FleetPoint& p = back.points.front();
  EXPECT_EQ(p.op, "all_reduce");
  EXPECT_TRUE(p.in_place);
  EXPECT_EQ(p.size_bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(p.nranks, 8);
  EXPECT_EQ(p.link_class, "NV18");
  EXPECT_EQ(p.driver, "13.0");
  EXPECT_DOUBLE_EQ(p.median_gbps, 370);
  EXPECT_DOUBLE_EQ(p.spread_gbps, 4.5);
  EXPECT_EQ(p.samples, 12);
}

TEST(BaselineIo, DamagedFieldsAreNamed) {
  const nlohmann::json good = baseline_to_json(sample());
  EXPECT_EQ(error_of(good), "");
  auto with = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = good;
    change(j);
    return error_of(j);
  };
  EXPECT_NE(with([](auto& j) { j["schema"] = "pipebench.results/1"; }).find("is not pipebench.baseline/1"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0].erase("op"); }).find("points[0].op"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0]["busbw_gbps"]["median"] = -1; }).find("points[0].busbw_gbps.median"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0]["busbw_gbps"]["min"] = 375; }).find("min <= median <= max"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0]["busbw_gbps"]["samples"] = 0; }).find("samples"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0]["nranks"] = 0; }).find("points[0].nranks"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"][0]["size_bytes"] = -4; }).find("points[0].size_bytes"), std::string::npos);
  EXPECT_NE(with([](auto& j) {
              const nlohmann::json copy = j["points"][0];
              j["points"].push_back(copy);
            }).find("\"points[1]\" repeats the key"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["points"] = 3; }).find("points"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
