// SPDX-License-Identifier: Apache-2.0
// bench --plan goes through the one measuring loop: a failing point is caught, counted and reported.
#include "service/plan_bench.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/loopback.h"
#include "cli/temp_folder.h"
#include "collectives/registry.h"

namespace pipebench {
namespace {

// Two ranks, one send each way of 256 floats (1 KiB) and one of 1024 floats (4 KiB) from 0 to 1.
Plan two_rank_plan() {
  Schedule schedule;
  schedule.id = {"1f1b", 1};
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
  c.measure.iters = 2;
  c.measure.warmup = 1;
  c.measure.reps = 2;
  c.outputs.json_path = json;
  return c;
}

class PlanBench : public e2e::TempFolder {};

TEST_F(PlanBench, SendsBecomeTransfersOfTheTransferOp) {
  const auto points = distinct_plan_points(two_rank_plan(), "");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].op, &OpRegistry::instance().transfer_op());
  EXPECT_EQ(points[1].op, &OpRegistry::instance().transfer_op());
  EXPECT_TRUE(points[0].forward && points[0].backward);   // 1 KiB both ways
  EXPECT_TRUE(points[1].forward && !points[1].backward);  // 4 KiB one way
  EXPECT_EQ(points[0].ids, (std::vector<int>{0, 1}));
}

// pp 4, m 8 (1F1B W 2 1 0 0) and interleaved v 2 without overlap: rank 1's send_forward_recv_backward (send
// to 2, recv from 2) and rank 2's send_backward_recv_forward (send to 1, recv from 1) are the same two
// transfers, one point; the interleaved steady batch of rank 1 is four transfers over {0, 1, 2}.
TEST_F(PlanBench, BatchesBecomeOnePointPerSetOfTransfers) {
  std::istringstream in(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --seq-length 16 --max-position-embeddings 16 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --world-size 4 --vocab-size 100 "
      "--bf16 --no-overlap-p2p-communication --num-layers-per-virtual-pipeline-stage 1");
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  const Plan plan = make_plan(parse_megatron_args(words), 0);
  const auto points = distinct_plan_points(plan, "1f1b");
  const PlanPoint* both = nullptr;
  std::set<int> ids;
  for (const auto& p : points) {
    for (int id : p.ids) EXPECT_TRUE(ids.insert(id).second) << "message " << id << " in two points";
    if (p.transfers == std::vector<RankPair>{{1, 2}, {2, 1}}) both = &p;
  }
  EXPECT_EQ(ids.size(), plan.schedules[0].messages.size());  // every message, recvs included
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->group, (std::vector<int>{1, 2}));
  EXPECT_EQ(both->batch, "send_forward_recv_backward+send_backward_recv_forward");
  // Rank 1's send_forward_recv_backward (x 6: send activation, recv grad) and rank 2's (W 1, R 7)
  // send_backward_recv_forward (x 6: send grad, recv activation): 2 + 2 messages. Rank 1's
  // send_backward_recv_forward is on {0, 1}, rank 2's send_forward_recv_backward on {2, 3}.
  EXPECT_EQ(both->ids.size(), 4u);
  const auto inter = distinct_plan_points(plan, "interleaved");
  const PlanPoint* four = nullptr;
  for (const auto& p : inter) {
    if (p.transfers == std::vector<RankPair>{{0, 1}, {1, 0}, {1, 2}, {2, 1}}) four = &p;
  }
  ASSERT_NE(four, nullptr);
  EXPECT_EQ(four->group, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(four->batch, "send_forward_backward_recv_forward_backward");
}

Plan grid_plan(const std::string& extra) {
  std::istringstream in(
      "--num-layers 16 --hidden-size 1024 --ffn-hidden-size 4096 --num-attention-heads 16 --seq-length 512 "
      "--max-position-embeddings 512 --micro-batch-size 1 --global-batch-size 16 --vocab-size 128 --fp16 "
      "--pipeline-model-parallel-size 4 " +
      extra);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return make_plan(parse_megatron_args(words), 0);
}

// Every stage reduces its gradients on its own (1-rank) DP group after the pipeline: one point runs them
// together, at the largest size of the class (the first stage's chunk holds the embedding).
TEST_F(PlanBench, GradientReductionsOfEveryStageAreTimedAtOnce) {
  const Plan plan = grid_plan("--world-size 4");
  const auto points = at_once_points(plan, "1f1b");
  ASSERT_EQ(points.size(), 1u);
  const PlanPoint& p = points[0];
  ASSERT_NE(p.op, nullptr);
  EXPECT_EQ(p.op->name(), "all_reduce");
  EXPECT_EQ(p.at_once, (std::vector<std::vector<int>>{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(p.group, (std::vector<int>{0, 1, 2, 3}));
  std::int64_t largest = 0;
  std::set<int> ids(p.ids.begin(), p.ids.end());
  for (const auto& m : plan.schedules[0].messages) {
    const bool reduction =
        m.phase == Phase::kAfter && m.op == "all_reduce" && m.group.size() == 1 && m.bytes >= kAtOnceMinBytes;
    EXPECT_EQ(ids.count(m.id), reduction ? 1u : 0u) << "message " << m.id << " (" << m.what << ")";
    if (reduction) largest = std::max(largest, m.elements);
  }
  EXPECT_EQ(p.elements, largest);
}

// Two DP replicas (world 8): each stage's group is two ranks, the four groups disjoint; a schedule of
// v chunks reduces per chunk, smaller messages, a point of their own.
TEST_F(PlanBench, AtOncePointsFollowTheGroupsAndSizesOfEachSchedule) {
  const Plan plan = grid_plan("--world-size 8 --num-layers-per-virtual-pipeline-stage 2");
  const auto one = at_once_points(plan, "1f1b");
  const auto inter = at_once_points(plan, "interleaved");
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(inter.size(), 1u);
  EXPECT_EQ(one[0].at_once.size(), 4u);
  for (const auto& g : one[0].at_once) EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(one[0].group.size(), 8u);
  EXPECT_LT(inter[0].elements, one[0].elements);
  // All schedules: both points, none twice.
  EXPECT_EQ(at_once_points(plan, "").size(), 2u);
}

// A single stage has nothing to run at the same time.
TEST_F(PlanBench, OneGroupHasNoAtOncePoint) {
  std::istringstream in(
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --max-position-embeddings 512 "
      "--micro-batch-size 1 --global-batch-size 8 --vocab-size 128 --fp16 --pipeline-model-parallel-size 1 "
      "--world-size 1");
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  EXPECT_TRUE(at_once_points(make_plan(parse_megatron_args(words), 0), "").empty());
}

TEST_F(PlanBench, AFailingPointIsCaughtCountedAndReported) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 4096);  // the 4 KiB send throws
  ::testing::internal::CaptureStdout();
  const int rc = run_plan_bench_on(backend, two_rank_plan(), "test", small_config(path("r.json")), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, static_cast<int>(ExitCode::kRuntimeError)) << out;
  EXPECT_NE(out.find("sendrecv both"), std::string::npos) << out;
  EXPECT_NE(out.find("#   error: injected failure at 4096 B"), std::string::npos) << out;
  EXPECT_NE(out.find("# Wrong values: 0 OK\n# Failed points: 1"), std::string::npos) << out;
  const auto results = nlohmann::json::parse(std::ifstream(path("r.json")));
  ASSERT_EQ(results["records"].size(), 2u);
  EXPECT_FALSE(results["records"][0].contains("error"));
  EXPECT_EQ(results["records"][0]["wrong"], 0);
  EXPECT_TRUE(results["records"][1].contains("error"));
  EXPECT_EQ(results["records"][1]["plan_ids"], (std::vector<int>{2}));
}

TEST_F(PlanBench, WithoutFailuresTheExitStatusIsZero) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  ::testing::internal::CaptureStdout();
  const int rc = run_plan_bench_on(backend, two_rank_plan(), "test", small_config(path("r.json")), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("Failed points"), std::string::npos) << out;
}

// bench --plan writes the record outputs of the table (service/record_outputs.h) beside its results JSON.
TEST_F(PlanBench, TheRecordOutputsAreWritten) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  BenchConfig c = small_config(path("r.json"));
  c.outputs.jsonl_path = path("r.jsonl");
  ::testing::internal::CaptureStdout();
  const int rc = run_plan_bench_on(backend, two_rank_plan(), "test", c, world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << out;
  std::ifstream jsonl(path("r.jsonl"));
  int lines = 0;
  for (std::string line; std::getline(jsonl, line);) ++lines;
  EXPECT_EQ(lines, 2);  // the two points, as in the results JSON
}

// bench --plan and run measure the pass costs on rank 0's GPU; host ranks have none: one line says so and
// the results file records no block. replay's table (plan_pass_costs off) says nothing of them.
TEST_F(PlanBench, HostRanksRecordNoPassCostsAndSaySo) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  BenchConfig c = small_config(path("r.json"));
  c.plan_pass_costs = true;
  ResultSet results;
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(run_plan_bench_on(backend, two_rank_plan(), "test", c, world, &results), 0);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("\n# pass costs: not measured (host ranks: no GPU)\n"), std::string::npos) << out;
  EXPECT_FALSE(results.pass_costs.has_value());
  EXPECT_FALSE(nlohmann::json::parse(std::ifstream(path("r.json"))).contains("pass_costs"));
  c.plan_pass_costs = false;
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(run_plan_bench_on(backend, two_rank_plan(), "test", c, world, &results), 0);
  out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("pass costs"), std::string::npos) << out;
}

}  // namespace
}  // namespace pipebench
