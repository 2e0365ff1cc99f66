// SPDX-License-Identifier: Apache-2.0
// The replay's console text: the table's rows (errors and both speed-ups over 1F1B), the verdict line,
// the shares and the drift line, for a small hand-made replay.
#include "report/replay_table_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace pipebench {
namespace {

ScheduleReplay schedule(const std::string& name, int v, double median_ms, double predicted_ms) {
  ScheduleReplay s;
  s.id.name = name;
  s.id.v = v;
  s.iteration_ms = {median_ms};
  s.median_ms = s.min_ms = s.max_ms = median_ms;
  s.predicted_ms = predicted_ms;
  s.per_rank = {{0, 1, 1, 0, 0.25, 0.5}, {1, 1, 1, 0, 0.75, std::nullopt}};
  return s;
}

ReplayResult two_schedules() {
  ReplayResult r;
  r.backend = "mpi";
  r.compute = "host-sleep";
  r.world = 2;
  r.iterations = 1;
  r.schedules = {schedule("1f1b", 1, 100, 110), schedule("interleaved", 2, 80, 88)};
  r.measured_fastest = r.predicted_fastest = "interleaved:v2";
  return r;
}

TEST(ReplayTablePrinter, RowsCarryErrorAndBothSpeedUps) {
  std::ostringstream out;
  print_replay_table(out, two_schedules(), 0.05, "default");
  std::istringstream lines(out.str());
  std::string header, base, inter, verdict, extra;
  std::getline(lines, header);
  std::getline(lines, base);
  std::getline(lines, inter);
  std::getline(lines, verdict);
  EXPECT_FALSE(std::getline(lines, extra));
  EXPECT_EQ(header.rfind("#  schedule", 0), 0u) << header;
  // predicted 110 vs replayed 100: +10.0 %; 1F1B's speed-ups are 1.
  EXPECT_EQ(base, "   1f1b                    110.000    100.000 (100.000-100.000)    +10.0      1.000      1.000");
  // 110/88 = 1.250 predicted, 100/80 = 1.250 replayed.
  EXPECT_EQ(inter, "   interleaved:v2           88.000       80.000 (80.000-80.000)    +10.0      1.250      1.250");
  EXPECT_EQ(verdict.rfind("# Replay verdict: ", 0), 0u) << verdict;
}

// A replay whose iterations spread over more than the difference cannot contradict the prediction; a
// reference is checked and named, and the band says where it comes from.
TEST(ReplayTablePrinter, SpreadThatCoversTheDifferenceIsInconclusive) {
  ReplayResult r = two_schedules();
  r.schedules[1].median_ms = 90;  // 100/90 = 1.11x replayed against 1.25x predicted
  r.schedules[1].min_ms = 78;     // 1F1B's fastest over its slowest, 100/92, to 100/78 = 1.28x
  r.schedules[1].max_ms = 92;
  ScheduleReplay gpipe = schedule("gpipe", 1, 125, 137.5);  // 0.80x predicted and replayed
  gpipe.reference = true;
  r.schedules.push_back(gpipe);
  std::ostringstream out;
  print_replay_table(out, r, 0.05, "default");
  EXPECT_NE(out.str().find("\n# Replay verdict: prediction and replay inconclusive: interleaved:v2 speed-up predicted "
                           "1.25x, replayed 1.11x (1.09x-1.28x over its iterations): the replay's own spread covers "
                           "the difference; band +-5 % (default: the model's largest error in replays on CPU ranks"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("; references checked: gpipe\n"), std::string::npos) << out.str();
}

TEST(ReplayTablePrinter, WithoutPredictionTheVerdictSaysSo) {
  ReplayResult r = two_schedules();
  r.predicted_fastest.clear();
  for (auto& s : r.schedules) s.predicted_ms.reset();
  std::ostringstream out;
  print_replay_table(out, r, 0.05, "default");
  EXPECT_NE(out.str().find(
                "   1f1b                          -    100.000 (100.000-100.000)        -          -      1.000\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("\n# Replay verdict: interleaved:v2 is fastest measured (no prediction)\n"),
            std::string::npos)
      << out.str();
}

TEST(ReplayTablePrinter, ReportHasTitleSharesAndDrift) {
  ReplayResult r = two_schedules();
  RankDrift d;
  d.rank = 1;
  d.end_drift_ms = -2.5;
  d.by_kind_ms = {{"compute", 1.25}, {"p2p", -3.75}};
  d.largest = {{"F mb1 c0", "compute", 0.5}};
  r.schedules[0].drift = {d};
  std::ostringstream out;
  print_replay_report(out, r, "plan.json", 0.05, "default");
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("# replay of plan.json on 2 ranks (mpi backend, compute host-sleep), 1 iterations after one "
                       "warm-up\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\n# comm share 1f1b              r0 0.25 (pred 0.50)  r1 0.75\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n# drift 1f1b                r1 -2.50 ms vs model: compute +1.25, p2p -3.75; most: F mb1 c0 "
                      "+0.50\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("# drift interleaved"), std::string::npos) << text;  // no drift measured there
}

}  // namespace
}  // namespace pipebench
