// SPDX-License-Identifier: Apache-2.0
// The verdict: a band around each speed-up, "too close to call" inside it, the band measured by a
// replay, a replay that contradicts its prediction, and the iteration's dominant cost.
#include "sim/verdict.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "io/plan_io.h"
#include "megatron/plan.h"

namespace pipebench {
namespace {

SchedulePrediction schedule(const std::string& name, int v, double ms, bool reference = false) {
  SchedulePrediction s;
  s.id = {name, v};
  s.iteration_ms = ms;
  s.reference = reference;
  return s;
}

// 1F1B at 100 ms against interleaved v=2 at `interleaved_ms` (and GPipe, a reference, faster than both).
Prediction two_schedules(double interleaved_ms) {
  Prediction p;
  p.schedules = {schedule("1f1b", 1, 100), schedule("interleaved", 2, interleaved_ms), schedule("gpipe", 1, 50, true)};
  for (auto& s : p.schedules) s.speedup = 100 / s.iteration_ms;
  return p;
}

TEST(Verdict, ALeadInsideTheBandIsTooCloseToCall) {
  Prediction p = two_schedules(97);  // 1.03x
  decide_verdict(p, 0.05, "default");
  EXPECT_TRUE(p.too_close);
  EXPECT_EQ(p.best, "interleaved v=2");
  EXPECT_EQ(p.verdict.rfind("too close to call: interleaved v=2 is 1.03x 1F1B", 0), 0u) << p.verdict;
  decide_verdict(p, 0.02, "measured by r.json");  // the same lead beyond a narrower band names a winner
  EXPECT_FALSE(p.too_close);
  EXPECT_EQ(p.verdict.rfind("interleaved v=2 is fastest", 0), 0u) << p.verdict;
  EXPECT_NE(p.verdict.find("+-2 % band (measured by r.json)"), std::string::npos) << p.verdict;
}

TEST(Verdict, OneFOneBAheadByLessThanTheBandIsTooCloseToo) {
  Prediction p = two_schedules(103);
  decide_verdict(p, 0.05, "default");
  EXPECT_EQ(p.best, "1f1b");
  EXPECT_TRUE(p.too_close);
  EXPECT_EQ(p.verdict.rfind("too close to call: 1F1B (100.000 ms) is 1.03x interleaved v=2", 0), 0u) << p.verdict;
  Prediction q = two_schedules(130);
  decide_verdict(q, 0.05, "default");
  EXPECT_FALSE(q.too_close);
  EXPECT_EQ(q.verdict.rfind("1F1B is fastest", 0), 0u) << q.verdict;
}

TEST(Verdict, TheReferenceNeverWinsAndTheDominantCostIsNamed) {
  Prediction p = two_schedules(80);
  p.schedules[1].dominant = {"word-embedding grad (collective)", 72, 0.9};
  decide_verdict(p, 0.05, "default");
  EXPECT_EQ(p.best, "interleaved v=2");
  EXPECT_NE(p.verdict.find("its largest cost is word-embedding grad (collective): 72.000 ms, 90 %"), std::string::npos)
      << p.verdict;
}

TEST(Verdict, BandOutsideZeroToOneIsRefused) {
  Prediction p = two_schedules(80);
  EXPECT_THROW(decide_verdict(p, 0, "x"), UsageError);
  EXPECT_THROW(decide_verdict(p, 1, "x"), UsageError);
  EXPECT_THROW(decide_verdict(p, std::nan(""), "x"), UsageError);
}

TEST(Verdict, MeasuredBandIsTheLargestSpeedupError) {
  // Predicted 1.25x, replayed 100/90 = 1.111x: 12.5 % off.
  EXPECT_NEAR(measured_band({{"1f1b", 100}, {"interleaved:v2", 80}}, {{"1f1b", 100}, {"interleaved:v2", 90}}), 0.125,
              1e-9);
  // A perfect match is floored; no schedule in common gives the default.
  EXPECT_EQ(measured_band({{"1f1b", 100}, {"interleaved:v2", 80}}, {{"1f1b", 50}, {"interleaved:v2", 40}}),
            kMinSpeedupBand);
  EXPECT_EQ(measured_band({{"1f1b", 100}}, {{"1f1b", 100}}), kDefaultSpeedupBand);
}

TEST(Verdict, ReplayThatContradictsThePredictionDisagrees) {
  const std::map<std::string, double> predicted = {{"1f1b", 100}, {"interleaved:v2", 80}};
  const Agreement same = compare_with_replay(predicted, {{"1f1b", 110}, {"interleaved:v2", 89}}, 0.05);
  EXPECT_TRUE(same.compared);
  EXPECT_TRUE(same.agree) << same.text;
  const Agreement other = compare_with_replay(predicted, {{"1f1b", 100}, {"interleaved:v2", 105}}, 0.05);
  EXPECT_FALSE(other.agree);
  EXPECT_NE(other.text.find("measured fastest 1f1b, predicted fastest interleaved:v2"), std::string::npos)
      << other.text;
  // The same winner, but 1.25x predicted against 1.11x replayed: beyond a 5 % band.
  const Agreement off = compare_with_replay(predicted, {{"1f1b", 100}, {"interleaved:v2", 90}}, 0.05);
  EXPECT_FALSE(off.agree);
  EXPECT_NE(off.text.find("interleaved:v2 speed-up predicted 1.25x, replayed 1.11x"), std::string::npos) << off.text;
  // A prediction too close to call is not contradicted by either winner.
  const Agreement close =
      compare_with_replay({{"1f1b", 100}, {"interleaved:v2", 98}}, {{"1f1b", 100}, {"interleaved:v2", 101}}, 0.05);
  EXPECT_TRUE(close.agree) << close.text;
  EXPECT_FALSE(compare_with_replay(predicted, {{"gpipe", 1}}, 0.05).compared);
}

// A plan whose tied-embedding all-reduce between the first and last stage dwarfs everything else: the
// verdict names it (the seed's case, where it was about 90 % of the iteration).
TEST(Verdict, PredictNamesACollectiveThatDominatesTheIteration) {
  std::istringstream in(
      "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --fp16 --vocab-size 50000 "
      "--world-size 4");
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  const Plan plan = plan_from_json(plan_to_json(make_plan(parse_megatron_args(w), 0)), "test plan");
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.01;
  const Prediction p = predict(plan, AssumedCost(0.05, 10), make_compute_model(plan, c), false, false, "");
  const SchedulePrediction& best =
      *std::find_if(p.schedules.begin(), p.schedules.end(), [&](const auto& s) { return s.id.label() == p.best; });
  EXPECT_EQ(best.dominant.what, "word-embedding grad (collective)") << p.verdict;
  EXPECT_GT(best.dominant.share, 0.5);
  EXPECT_LE(best.dominant.share, 1.0);
  EXPECT_NE(p.verdict.find("its largest cost is word-embedding grad"), std::string::npos) << p.verdict;
}

}  // namespace
}  // namespace pipebench
