// SPDX-License-Identifier: Apache-2.0
// pipebench.prediction/1: round trip and bad-file messages.
#include "io/prediction_io.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

using nlohmann::json;

Prediction predict_plan() {
  std::istringstream in(
      "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 "
      "--global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 --world-size 4");
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  const Plan plan = make_plan(parse_megatron_args(w), 0);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.5;
  return predict(plan, AssumedCost(20, 5), make_compute_model(plan, c), false, false, "");
}

json predicted() { return prediction_to_json(predict_plan()); }

std::string error_of(const json& j) {
  try {
    (void)prediction_from_json(j, "--prediction p.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PredictionIo, RoundTripGivesTheSameJson) {
  const json first = predicted();
  ASSERT_FALSE(first["break_even_gbps"].empty());  // the round trip covers break-even too
  const Prediction back = prediction_from_json(first, "test");
  EXPECT_EQ(prediction_to_json(back), first);
  EXPECT_EQ(back.schedules.size(), first["schedules"].size());
  EXPECT_EQ(back.schedules[0].ranks.size(), 4u);
  // The verdict's band and each schedule's dominant cost travel too.
  EXPECT_EQ(back.band, 0.05);
  EXPECT_EQ(back.band_source, "default");
  EXPECT_FALSE(back.schedules[0].dominant.what.empty());
}

// The file holds the prediction itself: read back, every schedule's per-rank costs and verdict are the
// ones predict made (only the simulation's internals stay behind).
TEST(PredictionIo, ReadsBackThePredictionPredictMade) {
  const Prediction made = predict_plan();
  const Prediction back = prediction_from_json(prediction_to_json(made), "test");
  ASSERT_EQ(back.schedules.size(), made.schedules.size());
  for (std::size_t i = 0; i < made.schedules.size(); ++i) {
    const SchedulePrediction &a = made.schedules[i], &b = back.schedules[i];
    EXPECT_EQ(b.id, a.id);
    EXPECT_EQ(b.speedup, a.speedup);
    EXPECT_TRUE(b.sim.ranks.empty());
    ASSERT_EQ(b.ranks.size(), a.ranks.size());
    ASSERT_EQ(a.ranks.size(), 4u);
    for (std::size_t r = 0; r < a.ranks.size(); ++r) {
      EXPECT_EQ(b.ranks[r].rank, a.ranks[r].rank);
      EXPECT_EQ(b.ranks[r].compute_ms, a.ranks[r].compute_ms);
      EXPECT_EQ(b.ranks[r].idle_ms, a.ranks[r].idle_ms);
      EXPECT_EQ(b.ranks[r].nccl_share, a.ranks[r].nccl_share);
      EXPECT_EQ(b.ranks[r].p2p_bytes, a.ranks[r].p2p_bytes);
    }
  }
  EXPECT_EQ(back.best, made.best);
  EXPECT_EQ(back.verdict, made.verdict);
  EXPECT_EQ(back.deciding_pair, made.deciding_pair);
  // The verdict's "decided by" numbers too: the link's cost per message and the size it was costed at.
  ASSERT_GT(made.deciding_bytes, 0);
  EXPECT_EQ(back.deciding_bytes, made.deciding_bytes);
  EXPECT_EQ(back.deciding_pair_ms, made.deciding_pair_ms);
}

// A file written before the deciding link's cost and size were recorded reads with both 0; a negative
// size or cost is refused by name.
TEST(PredictionIo, DecidingCostIsOptionalAndChecked) {
  json j = predicted();
  ASSERT_TRUE(j["verdict"].contains("deciding_bytes"));
  j["verdict"].erase("deciding_pair_ms");
  j["verdict"].erase("deciding_bytes");
  const Prediction old = prediction_from_json(j, "test");
  EXPECT_EQ(old.deciding_bytes, 0);
  EXPECT_EQ(old.deciding_pair_ms, 0);
  EXPECT_FALSE(old.deciding_pair.empty());
  j = predicted();
  j["verdict"]["deciding_bytes"] = -4;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"verdict.deciding_bytes\" is negative");
  j = predicted();
  j["verdict"]["deciding_pair_ms"] = -1;
  EXPECT_NE(error_of(j).find("\"verdict.deciding_pair_ms\" is -1"), std::string::npos);
}

// The measured term of groups reducing at once is written when the prediction used one, read back,
// and range-checked.
TEST(PredictionIo, MeasuredTermsRoundTripAndAreChecked) {
  json first = predicted();
  EXPECT_FALSE(first.contains("measured_terms"));  // an assumed link has none
  first["measured_terms"] = {{"collectives_at_once",
                              {{{"op", "all_reduce"},
                                {"group_size", 1},
                                {"groups", 4},
                                {"bytes", 25192448},
                                {"alone_us", 2200.0},
                                {"together_us", 4400.0},
                                {"slowdown", 2.0}}}}};
  const Prediction back = prediction_from_json(first, "test");
  ASSERT_EQ(back.sharing.size(), 1u);
  EXPECT_EQ(back.sharing[0].groups, 4);
  EXPECT_DOUBLE_EQ(back.sharing[0].capacity(), 2.0);
  EXPECT_EQ(prediction_to_json(back), first);
  json bad = first;
  bad["measured_terms"]["collectives_at_once"][0]["groups"] = 1;
  EXPECT_NE(error_of(bad).find("collectives_at_once[0].groups"), std::string::npos);
  bad = first;
  bad["measured_terms"]["collectives_at_once"][0]["alone_us"] = 0.0;
  EXPECT_NE(error_of(bad).find("alone_us"), std::string::npos);
}

// The memory note of a schedule that splits B and W, and the W share, are optional: written where such a
// schedule was predicted, read back the same, absent from older files.
TEST(PredictionIo, MemoryNoteAndWShareRoundTripAndAreOptional) {
  json j = predicted();
  // predict gives each schedule that splits B and W its memory note (and the file the W share), no other.
  int noted = 0;
  for (const auto& s : j["schedules"]) noted += s.contains("activations_held") ? 1 : 0;
  ASSERT_GT(noted, 0);
  ASSERT_LT(noted, static_cast<int>(j["schedules"].size()));
  ASSERT_TRUE(j["compute"].contains("w_share"));
  // A file without any is read as well.
  j["compute"].erase("w_share");
  for (auto& s : j["schedules"]) s.erase("activations_held");
  EXPECT_TRUE(prediction_from_json(j, "test").schedules[1].activations_held.empty());
  j["schedules"][0]["activations_held"] = {4, 4, 4, 4};
  j["compute"]["w_share"] = 0.25;
  const Prediction back = prediction_from_json(j, "test");
  EXPECT_EQ(back.schedules[0].activations_held, (std::vector<double>{4, 4, 4, 4}));
  EXPECT_EQ(back.w_share, 0.25);
  EXPECT_EQ(prediction_to_json(back), j);
  j["schedules"][0]["activations_held"][1] = -1;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].activations_held[1]\" is out of range");
  j["schedules"][0]["activations_held"][1] = "four";
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].activations_held[1]\" is not a number");
  ASSERT_EQ(j["schedules"][0]["ranks"].size(), 4u);
  j["schedules"][0]["activations_held"] = {4};
  EXPECT_EQ(error_of(j),
            "--prediction p.json: \"schedules[0].activations_held\" has 1 values for 4 ranks (one per rank of ranks)");
}

// Each schedule's steady state and step rule, and which iteration the verdict compares, round trip; a file
// written before they were recorded is read with its one iteration standing for the steady state.
TEST(PredictionIo, SteadyStateAndStepRuleRoundTripAndAreOptional) {
  json j = predicted();
  const Prediction made = prediction_from_json(j, "test");
  bool post_validation = false;
  for (const auto& s : made.schedules) {
    EXPECT_GT(s.steady_ms, 0) << s.id.key();
    post_validation = post_validation || s.step_rule == StepRule::kPostValidation;
  }
  EXPECT_TRUE(post_validation);  // the zero-bubble references
  EXPECT_EQ(j["verdict"]["compares"], "steady");
  EXPECT_EQ(j["schedules"][0]["step_rule"], "synchronous step");
  j["schedules"][1]["steady_ms"] = 1.5;
  j["schedules"][1]["step_rule"] = "post-validation";
  j["verdict"]["compares"] = "cold";
  const Prediction back = prediction_from_json(j, "test");
  EXPECT_EQ(back.schedules[1].steady_ms, 1.5);
  EXPECT_EQ(back.schedules[1].step_rule, StepRule::kPostValidation);
  EXPECT_TRUE(back.compares_cold);
  EXPECT_EQ(back.compared_ms(back.schedules[1]), back.schedules[1].iteration_ms);
  EXPECT_EQ(prediction_to_json(back), j);
  for (auto& s : j["schedules"]) {
    s.erase("steady_ms");
    s.erase("step_rule");
  }
  j["verdict"].erase("compares");
  const Prediction old = prediction_from_json(j, "test");
  EXPECT_FALSE(old.compares_cold);
  EXPECT_EQ(old.schedules[1].steady_ms, 0);
  EXPECT_EQ(old.compared_ms(old.schedules[1]), old.schedules[1].iteration_ms);
  j = predicted();
  j["schedules"][0]["step_rule"] = "async";
  EXPECT_EQ(
      error_of(j),
      "--prediction p.json: \"schedules[0].step_rule\" is 'async', not \"synchronous step\" or \"post-validation\"");
  j = predicted();
  j["verdict"]["compares"] = "warm";
  EXPECT_EQ(error_of(j), "--prediction p.json: \"verdict.compares\" is 'warm', not cold or steady");
}

TEST(PredictionIo, BadFilesAreNamedByFileAndField) {
  EXPECT_EQ(error_of(json{{"schema", "pipebench.plan/1"}}),
            "--prediction p.json: schema \"pipebench.plan/1\" is not pipebench.prediction/1");
  json j = predicted();
  j["schedules"][1]["ranks"][2].erase("nccl_share");
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[1].ranks[2].nccl_share\" is missing");
  j = predicted();
  j["verdict"]["best"] = 3;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"verdict.best\" is not a string");
  j = predicted();
  j["break_even_gbps"]["two"] = 1.0;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"break_even_gbps.two\" is not keyed by a number of virtual stages");
  j = predicted();
  j["verdict"]["band"] = 1.5;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"verdict.band\" must be in (0, 1)");
  j = predicted();
  j["schedules"][0]["dominant_cost"]["share"] = -1;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].dominant_cost\" ms or share out of range");
}

// A negative iteration time, a share of 7.5 or a v of -3 are each named, never read as given.
TEST(PredictionIo, NumbersOutOfRangeAreNamed) {
  json j = predicted();
  j["schedules"][0]["iteration_ms"] = -5;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].iteration_ms\" is -5, outside [0.0, 10000000000000.0]");
  j = predicted();
  j["schedules"][0]["ranks"][0]["nccl_share"] = 7.5;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].ranks[0].nccl_share\" is 7.5, outside [0.0, 1.0]");
  j = predicted();
  j["schedules"][0]["v"] = -3;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0]\" schedule 1f1b with v -3 (its v is 1)");
  j = predicted();
  j["schedules"][0]["name"] = "zb-h9";
  EXPECT_EQ(error_of(j),
            "--prediction p.json: \"schedules[0]\" schedule 'zb-h9' is none of 1f1b, gpipe, interleaved, "
            "interleaved-zb, zb-2p, zb-h1, zb-h2, zbv");
  j = predicted();
  j["schedules"][0]["bubble_sim"] = -1;
  EXPECT_NE(error_of(j).find("\"schedules[0].bubble_sim\" is -1"), std::string::npos);
  j = predicted();
  j["schedules"][0]["ranks"][0]["p2p_bytes"] = -1;
  EXPECT_EQ(error_of(j), "--prediction p.json: \"schedules[0].ranks[0].p2p_bytes\" is negative");
}

}  // namespace
}  // namespace pipebench
