// SPDX-License-Identifier: Apache-2.0
// A profile held against a real plan (pp = 4, the Megatron reference's seed model).
#include "trace/plan_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "core/error.h"
#include "io/plan_io.h"
#include "megatron/plan.h"

namespace pipebench {
namespace {

using json = nlohmann::json;

json seed_plan() {
  std::istringstream in(
      "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 --num-attention-heads 32 --seq-length 32 "
      "--max-position-embeddings 32 "
      "--micro-batch-size 1 --global-batch-size 16 --tensor-model-parallel-size 1 --pipeline-model-parallel-size 4 "
      "--bf16 --vocab-size 50257");
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return plan_to_json(make_plan(parse_megatron_args(words), 0));
}

// By value, so that no caller can keep a reference that outlives `plan` (g++ 13 -Wdangling-reference).
json schedule_of(const json& plan, const std::string& name, int v) {
  for (const auto& s : plan["schedules"])
    if (s["name"] == name && s["v"] == v) return s;
  throw std::runtime_error("no schedule");
}

// The collectives a profile of `iterations` iterations of this schedule would show on `rank`.
DeviceProfile device_as_planned(const json& schedule, int rank, int device, std::int64_t iterations) {
  std::map<std::pair<std::string, std::int64_t>, CollectiveRow> rows;
  for (const auto& m : schedule["messages"]) {
    if (m["rank"] != rank) continue;
    CollectiveRow& c = rows[{m["op"].get<std::string>(), m["elements"].get<std::int64_t>()}];
    c.op = m["op"];
    c.elements = m["elements"];
    c.dtype = m["dtype"];
    c.count += m["count"].get<std::int64_t>() * iterations;
    c.source = "nvtx";
  }
  DeviceProfile d;
  d.device = device;
  d.first_ns = 0;
  d.last_ns = 1000;
  d.comm_ns = 300;
  for (auto& [k, c] : rows) d.collectives.push_back(c);
  return d;
}

TEST(PlanCheck, AProfileOfThePlanMatchesAndTheIterationsAreEstimated) {
  const json plan = seed_plan();
  const json s = schedule_of(plan, "1f1b", 1);
  TraceProfile p;
  p.devices.push_back(device_as_planned(s, 0, 0, 3));
  p.devices.push_back(device_as_planned(s, 1, 1, 3));
  const PlanCheck c = check_against_plan(p, plan_from_json(plan, "test plan"), nullptr, PlanCheckOptions{});
  EXPECT_EQ(c.schedule.name, "1f1b");
  EXPECT_EQ(c.iterations, 3);
  EXPECT_NE(c.iterations_source.find("estimated"), std::string::npos);
  EXPECT_EQ(c.mismatches, 0);
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.ranks[1].rank, 1);
  EXPECT_FALSE(c.ranks[0].rows.empty());
  for (const auto& r : c.ranks)
    for (const auto& row : r.rows) EXPECT_EQ(row.status, "ok") << row.op << " " << row.elements;
  EXPECT_DOUBLE_EQ(c.ranks[0].comm_share, 0.3);
  EXPECT_NE(c.schedule_reason.find("best match"), std::string::npos);
}

TEST(PlanCheck, TheBestMatchingScheduleIsChosenAndMismatchesAreListed) {
  const json plan = seed_plan();
  const json s = schedule_of(plan, "interleaved", 2);
  TraceProfile p;
  DeviceProfile d = device_as_planned(s, 0, 0, 2);
  ASSERT_GE(d.collectives.size(), 2u);
  const std::string dropped_op = d.collectives.front().op;
  d.collectives.erase(d.collectives.begin());                                    // a planned message not seen
  d.collectives.push_back(CollectiveRow{"alltoall", 77, "", 0, 5, -1, "nvtx"});  // one never planned
  d.collectives.front().count += 1;                                              // one seen once too often
  p.devices.push_back(d);
  PlanCheckOptions o;
  o.iterations = 2;
  const PlanCheck c = check_against_plan(p, plan_from_json(plan, "test plan"), nullptr, o);
  EXPECT_EQ(c.schedule.name, "interleaved");
  EXPECT_EQ(c.schedule.v, 2);
  EXPECT_EQ(c.iterations, 2);
  std::map<std::string, int> statuses;
  for (const auto& row : c.ranks.at(0).rows) ++statuses[row.status];
  EXPECT_EQ(statuses["missing"], 1);
  EXPECT_EQ(statuses["unplanned"], 1);
  EXPECT_EQ(statuses["count"], 1);
  EXPECT_EQ(c.ranks[0].mismatches, 3);
  (void)dropped_op;

  // --schedule picks one even when another fits better.
  o.schedule = "1f1b";
  const PlanCheck forced = check_against_plan(p, plan_from_json(plan, "test plan"), nullptr, o);
  EXPECT_EQ(forced.schedule.name, "1f1b");
  EXPECT_GT(forced.mismatches, 3);
  o.schedule = "interleaved:v3";
  EXPECT_THROW((void)check_against_plan(p, plan_from_json(plan, "test plan"), nullptr, o), UsageError);
}

TEST(PlanCheck, RanksFromTheFirstRankAndThePredictedShare) {
  const json plan = seed_plan();
  const json s = schedule_of(plan, "1f1b", 1);
  TraceProfile p;
  p.devices.push_back(device_as_planned(s, 2, 0, 1));
  Prediction prediction;
  SchedulePrediction one_f_one_b;
  one_f_one_b.id = {"1f1b", 1};
  PredictedRank rank2;
  rank2.rank = 2;
  rank2.nccl_share = 0.25;
  one_f_one_b.ranks.push_back(rank2);
  prediction.schedules.push_back(one_f_one_b);
  PlanCheckOptions o;
  o.first_rank = 2;
  o.schedule = "1f1b";
  const PlanCheck c = check_against_plan(p, plan_from_json(plan, "test plan"), &prediction, o);
  ASSERT_EQ(c.ranks.size(), 1u);
  EXPECT_EQ(c.ranks[0].rank, 2);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.iterations, 1);
  ASSERT_TRUE(c.ranks[0].predicted_comm_share);
  EXPECT_DOUBLE_EQ(*c.ranks[0].predicted_comm_share, 0.25);
  const json j = plan_check_to_json(c);
  EXPECT_EQ(j["ranks"][0]["predicted_comm_share"], 0.25);
  EXPECT_EQ(j["schedule"], "1f1b");

  // A prediction without the chosen schedule gives no share and says so.
  prediction.schedules[0].id = {"gpipe", 1};
  const PlanCheck none = check_against_plan(p, plan_from_json(plan, "test plan"), &prediction, o);
  EXPECT_FALSE(none.ranks[0].predicted_comm_share);
  EXPECT_EQ(std::count_if(none.notes.begin(), none.notes.end(),
                          [](const std::string& n) { return n.find("has no 1f1b schedule") != std::string::npos; }),
            1);
}

}  // namespace
}  // namespace pipebench
