// SPDX-License-Identifier: Apache-2.0
// bench --plan goes through the one measuring loop: a failing point is caught, counted and reported.
#include "app/plan_bench.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/loopback.h"
#include "collectives/registry.h"

namespace pipebench {
namespace {

// Two ranks, one send each way of 256 floats (1 KiB) and one of 1024 floats (4 KiB) from 0 to 1.
Plan two_rank_plan() {
  Schedule schedule;
  schedule.name = "1f1b";
  auto send = [&](int id, int rank, int peer, int elements) {
    PlanMessage m;
    m.id = id;
    m.op = "send";
    m.rank = rank;
    m.peer = peer;
    m.group = {rank, peer};
    m.elements = elements;
    m.dtype = DType::kFloat;
    schedule.messages.push_back(m);
    m.id = id + 100;
    m.op = "recv";
    m.rank = peer;
    m.peer = rank;
    schedule.messages.push_back(m);
  };
  send(0, 0, 1, 256);
  send(1, 1, 0, 256);
  send(2, 0, 1, 1024);
  Plan plan;
  plan.layout.world = 2;
  plan.schedules.push_back(schedule);
  return plan;
}

BenchConfig small_config(const std::string& json) {
  BenchConfig c;
  c.iters = 2;
  c.warmup = 1;
  c.reps = 2;
  c.json_path = json;
  return c;
}

std::string temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "pipebench-plan-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

TEST(PlanBench, SendsBecomeTransfersOfTheTransferOp) {
  const auto points = distinct_plan_points(two_rank_plan(), "");
  ASSERT_EQ(points.size(), 2u);
  const std::string transfer(OpRegistry::instance().plan_transfer_op().name());
  EXPECT_EQ(points[0].op, transfer);
  EXPECT_TRUE(points[0].forward && points[0].backward);   // 1 KiB both ways
  EXPECT_TRUE(points[1].forward && !points[1].backward);  // 4 KiB one way
  EXPECT_EQ(points[0].ids, (std::vector<int>{0, 1}));
}

TEST(PlanBench, AFailingPointIsCaughtCountedAndReported) {
  const std::string dir = temp_dir();
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 4096);  // the 4 KiB send throws
  ::testing::internal::CaptureStdout();
  const int rc = run_plan_bench_on(backend, two_rank_plan(), "test", small_config(dir + "/r.json"), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, static_cast<int>(ExitCode::kRuntimeError)) << out;
  EXPECT_NE(out.find("sendrecv both"), std::string::npos) << out;
  EXPECT_NE(out.find("#   error: injected failure at 4096 B"), std::string::npos) << out;
  EXPECT_NE(out.find("# Wrong values: 0 OK\n# Failed points: 1"), std::string::npos) << out;
  const auto results = nlohmann::json::parse(std::ifstream(dir + "/r.json"));
  ASSERT_EQ(results["records"].size(), 2u);
  EXPECT_FALSE(results["records"][0].contains("error"));
  EXPECT_EQ(results["records"][0]["wrong"], 0);
  EXPECT_TRUE(results["records"][1].contains("error"));
  EXPECT_EQ(results["records"][1]["plan_ids"], (std::vector<int>{2}));
  std::filesystem::remove_all(dir);
}

TEST(PlanBench, WithoutFailuresTheExitStatusIsZero) {
  const std::string dir = temp_dir();
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  ::testing::internal::CaptureStdout();
  const int rc = run_plan_bench_on(backend, two_rank_plan(), "test", small_config(dir + "/r.json"), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("Failed points"), std::string::npos) << out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
