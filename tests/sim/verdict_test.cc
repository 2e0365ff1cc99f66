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

// Schedules held against a replay with no spread (min = max = median) unless given.
std::vector<ReplayedSchedule> held(const std::map<std::string, double>& predicted_ms,
                                   const std::map<std::string, double>& replayed_ms) {
  std::vector<ReplayedSchedule> out;
  for (const auto& [key, t] : predicted_ms) {
    const double r = replayed_ms.count(key) ? replayed_ms.at(key) : 0;
    out.push_back({key, key == "gpipe", t, r, r, r});
  }
  return out;
}

TEST(Verdict, ReplayThatContradictsThePredictionDisagrees) {
  const std::map<std::string, double> predicted = {{"1f1b", 100}, {"interleaved:v2", 80}};
  const Agreement same = compare_with_replay(held(predicted, {{"1f1b", 110}, {"interleaved:v2", 89}}), 0.05, "x");
  EXPECT_TRUE(same.compared);
  EXPECT_TRUE(same.agree) << same.text;
  const Agreement other = compare_with_replay(held(predicted, {{"1f1b", 100}, {"interleaved:v2", 105}}), 0.05, "x");
  EXPECT_FALSE(other.agree);
  EXPECT_FALSE(other.inconclusive);
  EXPECT_NE(other.text.find("measured fastest 1f1b, predicted fastest interleaved:v2"), std::string::npos)
      << other.text;
  // The same winner, but 1.25x predicted against 1.11x replayed: beyond a 5 % band.
  const Agreement off = compare_with_replay(held(predicted, {{"1f1b", 100}, {"interleaved:v2", 90}}), 0.05, "x");
  EXPECT_FALSE(off.agree);
  EXPECT_NE(off.text.find("interleaved:v2 speed-up predicted 1.25x, replayed 1.11x"), std::string::npos) << off.text;
  // A prediction too close to call is not contradicted by either winner.
  const Agreement close = compare_with_replay(
      held({{"1f1b", 100}, {"interleaved:v2", 98}}, {{"1f1b", 100}, {"interleaved:v2", 101}}), 0.05, "x");
  EXPECT_TRUE(close.agree) << close.text;
  EXPECT_FALSE(compare_with_replay(held(predicted, {}), 0.05, "x").compared);
}

// The loaded machine's case: 1.00x predicted, 0.89x by the medians, but the iterations spread from 0.80x to
// 1.05x. The spread covers the difference: inconclusive, not a contradiction; with a tight spread, it is one.
TEST(Verdict, ReplaySpreadThatCoversTheDifferenceIsInconclusive) {
  std::vector<ReplayedSchedule> s = {{"1f1b", false, 100, 100, 95, 105}, {"interleaved:v2", false, 100, 112, 100, 125}};
  const Agreement wide = compare_with_replay(s, 0.05, "default");
  EXPECT_FALSE(wide.agree);
  EXPECT_TRUE(wide.inconclusive);
  EXPECT_EQ(wide.text.rfind("prediction and replay inconclusive: interleaved:v2 speed-up predicted 1.00x, replayed "
                            "0.89x (0.76x-1.05x over its iterations): the replay's own spread covers the difference; "
                            "band +-5 % (default: the model's largest error in replays on CPU ranks",
                            0),
            0u)
      << wide.text;
  s[0].min_ms = s[0].max_ms = 100;
  s[1].min_ms = 111;
  s[1].max_ms = 113;
  const Agreement tight = compare_with_replay(s, 0.05, "measured by replay.json");
  EXPECT_FALSE(tight.agree);
  EXPECT_FALSE(tight.inconclusive);
  EXPECT_NE(tight.text.find("prediction and replay DISAGREE: interleaved:v2 speed-up predicted 1.00x, replayed 0.89x"),
            std::string::npos)
      << tight.text;
  EXPECT_NE(tight.text.find("band +-5 % (measured by replay.json), widened by the replay's spread"), std::string::npos)
      << tight.text;
}

// A reference is held against its prediction too and named; one without a replayed time is named as not
// checked. "every speed-up within the band" never hides one that is off.
TEST(Verdict, ReferencesAreCheckedAndNamed) {
  const std::vector<ReplayedSchedule> good = {
      {"1f1b", false, 100, 100, 100, 100}, {"gpipe", true, 120, 121, 121, 121}, {"zb-h1", true, 90, 0, 0, 0}};
  const Agreement a = compare_with_replay(good, 0.05, "default");
  EXPECT_TRUE(a.agree) << a.text;
  EXPECT_NE(a.text.find("every speed-up within the band +-5 %"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("; references checked: gpipe; references not checked (no predicted or replayed time, or no "
                        "1F1B): zb-h1"),
            std::string::npos)
      << a.text;
  // gpipe 0.83x predicted, 0.77x replayed: 8 points off, no spread.
  const std::vector<ReplayedSchedule> off = {{"1f1b", false, 100, 100, 100, 100}, {"gpipe", true, 120, 130, 130, 130}};
  const Agreement b = compare_with_replay(off, 0.05, "default");
  EXPECT_FALSE(b.agree);
  EXPECT_NE(b.text.find("gpipe (reference) speed-up predicted 0.83x, replayed 0.77x"), std::string::npos) << b.text;
  // A reference is never the fastest: 1F1B is, though gpipe's time is smaller.
  const std::vector<ReplayedSchedule> fast_ref = {{"1f1b", false, 100, 100, 100, 100}, {"gpipe", true, 90, 90, 90, 90}};
  EXPECT_NE(compare_with_replay(fast_ref, 0.05, "default").text.find("measured fastest 1f1b, predicted fastest 1f1b"),
            std::string::npos);
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
