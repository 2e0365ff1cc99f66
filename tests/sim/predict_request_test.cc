// SPDX-License-Identifier: Apache-2.0
// predict(plan, request): each cost source built once and said in words, a measured table priced on its
// placed ranks with the topology paths they share, the link model, and the errors of a table.
#include "sim/predict_request.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "io/nccl_tests_log.h"
#include "io/plan_io.h"
#include "io/results_io.h"
#include "megatron/plan.h"
#include "sim/model_error.h"

namespace pipebench {
namespace {

Plan small_plan() {
  std::istringstream in(
      "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 "
      "--world-size 4 --untie-embeddings-and-output-weights");
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return plan_from_json(plan_to_json(make_plan(parse_megatron_args(w), 0)), "test plan");
}

// A results file of four GPUs on one host whose every path crosses one root complex, with a record at half
// and at twice the size of each of the plan's messages.
nlohmann::json shared_host_results(const Plan& plan) {
  nlohmann::json devices = nlohmann::json::array(), gpus = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    const std::string bus = "0000:0" + std::to_string(i + 1) + ":00.0";
    devices.push_back({{"rank", i}, {"bus_id", bus}, {"host", "h"}});
    gpus.push_back({{"index", i}, {"bus_id", bus}});
  }
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      pairs.push_back({{"a", a},
                       {"b", b},
                       {"kind", "gpu-gpu"},
                       {"class", "PHB"},
                       {"path", {"up:gpu" + std::to_string(a), "down:gpu" + std::to_string(b), "rootcomplex"}}});
    }
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Schedule& s : plan.schedules) {
    for (const PlanMessage& m : s.messages) {
      std::vector<int> ranks = m.group;
      std::string op(m.op.name());
      if (m.op.is_p2p()) {
        op = "pair";
        ranks = {std::min(m.rank, m.peer), std::max(m.rank, m.peer)};
      }
      for (const std::int64_t size : {m.bytes / 2, m.bytes * 2})
        records.push_back({{"op", op}, {"ranks", ranks}, {"size_bytes", size}, {"time_us", 5 + size / 1e3}});
    }
  }
  const nlohmann::json topo = {{"schema", "pipebench.topology/1"}, {"host", "h"}, {"gpus", gpus}, {"pairs", pairs}};
  return {
      {"schema", "pipebench.results/1"}, {"records", records}, {"system", {{"devices", devices}, {"topology", topo}}}};
}

PredictRequest request_of(CostSource costs, const Plan& plan, const std::string& schedule = "1f1b") {
  PredictRequest r;
  r.costs = std::move(costs);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.05;
  r.compute = make_compute_model(plan, c);
  r.schedule = schedule;
  return r;
}

// The measured table's transfers take their topology paths (replay's prediction had none): those that share
// the root complex compete, so the iteration is longer than on a private path per pair; every pair on one
// path is the shared-path model.
TEST(PredictRequest, AMeasuredTableIsPricedOnItsPlacedRanksAndTheirPaths) {
  const Plan plan = small_plan();
  const MeasuredTable table = measured_table(results_from_json(shared_host_results(plan), "r"), "r.json");
  const PathModel paths = path_model(table.placement);
  ASSERT_FALSE(paths.empty());
  const PredictOutcome out = predict(plan, request_of(table, plan));
  EXPECT_EQ(out.cost_text, "measured: r.json");
  ASSERT_TRUE(out.link_count.has_value());
  EXPECT_EQ(*out.link_count, paths.link_count);
  const MeasuredCost costs(table.records, table.placement, "r.json");
  const ComputeModel compute = request_of(table, plan).compute;
  const double pathed = predict(plan, costs, compute, false, false, "1f1b", &paths).schedules.at(0).iteration_ms;
  const double unpathed = predict(plan, costs, compute, false, false, "1f1b").schedules.at(0).iteration_ms;
  EXPECT_EQ(out.prediction.schedules.at(0).iteration_ms, pathed);
  EXPECT_GT(pathed, unpathed);
  PredictRequest shared = request_of(table, plan);
  shared.links = LinkModel::kSharedPath;
  EXPECT_EQ(predict(plan, shared).prediction.schedules.at(0).iteration_ms,
            predict(plan, costs, compute, true, false, "1f1b").schedules.at(0).iteration_ms);
}

TEST(PredictRequest, EachCostSourceSaysWhatItIs) {
  const Plan plan = small_plan();
  EXPECT_EQ(predict(plan, request_of(ZeroComm{}, plan)).cost_text,
            "zero: communication is free (a compute-only bound)");
  AssumedLinks links{25, 5, {}, {}, ""};
  const PredictOutcome assumed = predict(plan, request_of(links, plan));
  EXPECT_EQ(assumed.cost_text, "assumed: every link 25 GB/s per direction, 5 us latency");
  EXPECT_FALSE(assumed.link_count.has_value());
  // A class link applies to the pairs of its class: PHB at 1 GB/s makes every transfer slower.
  links.class_links = {{*parse_link_class("PHB"), 1, 5}};
  links.placement = place_ranks(results_from_json(shared_host_results(plan), "r"));
  const PredictOutcome slow = predict(plan, request_of(links, plan));
  EXPECT_EQ(slow.cost_text, "assumed: every link 25 GB/s per direction, 5 us latency; PHB 1 GB/s, 5 us");
  EXPECT_GT(slow.prediction.schedules.at(0).iteration_ms, assumed.prediction.schedules.at(0).iteration_ms);
  const AssumedCost given_model(25, 5);
  EXPECT_EQ(predict(plan, request_of(GivenCosts{&given_model, "from the profile"}, plan)).cost_text,
            "from the profile");
  EXPECT_THROW((void)predict(plan, request_of(GivenCosts{}, plan)), Error);
}

// An nccl-tests import is priced by its collective table for every group, and says so.
TEST(PredictRequest, AnNcclTestsTableStandsForEveryGroup) {
  const std::string path = std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-8x3090-seed.log";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::optional<ResultSet> results = nccl_tests_result_set_of(path, text.str());
  ASSERT_TRUE(results.has_value());
  const MeasuredTable table = measured_table(std::move(*results), "seed.log");
  ASSERT_TRUE(table.from_nccl_tests);
  const Plan plan = small_plan();
  const PredictOutcome out = predict(plan, request_of(table, plan, "all"));
  EXPECT_EQ(out.cost_text.rfind("derived from nccl-tests all_reduce on 8 ranks (seed.log): P2P = ", 0), 0u)
      << out.cost_text;
  EXPECT_GT(out.prediction.schedules.size(), 1u);  // "all": every schedule
}

TEST(PredictRequest, ATableWithoutARecordForAMessageIsNamed) {
  const Plan plan = small_plan();
  nlohmann::json j = shared_host_results(plan);
  j["records"] = nlohmann::json::array({{{"op", "pair"}, {"ranks", {0, 1}}, {"size_bytes", 1024}, {"time_us", 5.0}}});
  try {
    (void)predict(plan, request_of(measured_table(results_from_json(j, "r"), "r.json"), plan));
    FAIL() << "a table without the plan's messages gave a prediction";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: no measurement of"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pipebench
