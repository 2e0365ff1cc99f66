// SPDX-License-Identifier: Apache-2.0
// run's summary table from a few records: the latency of the smallest out-of-place size, the peak bus
// bandwidth, wrong values and failed points per op, and the verdict line they decide; then the run's
// outcome: the replay step, the report's line, the answer and summary.txt.
#include "report/run_summary_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "report/replay_table_printer.h"

namespace pipebench {
namespace {

ResultRecord record(const std::string& op, std::uint64_t size_bytes, bool in_place, double time_us, double busbw_gbps) {
  ResultRecord r;
  r.op = op;
  r.nranks = 2;
  r.size_bytes = size_bytes;
  r.in_place = in_place;
  r.time_us = time_us;
  r.busbw_gbps = busbw_gbps;
  r.wrong = 0;
  return r;
}

TEST(RunSummaryPrinter, LatencyFromSmallestOutOfPlaceAndPeakBandwidth) {
  const std::vector<ResultRecord> records = {record("all_reduce", 8, true, 1.0, 0.01),  // in place: not the latency
                                             record("all_reduce", 8, false, 5.0, 0.01),
                                             record("all_reduce", 1024, false, 9.0, 2.5),
                                             record("sendrecv", 8, false, 3.0, 0.1)};
  const RunSummary s = summarize_run(records, "runs/x");
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(*s.ops[0].latency_us, 5.0);
  EXPECT_EQ(s.ops[0].peak_size_bytes, 1024u);
  std::ostringstream out;
  print_run_summary(out, s);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "#");
  std::getline(lines, line);
  EXPECT_EQ(line, "# Summary (files in runs/x)");
  std::getline(lines, line);  // column heads
  std::getline(lines, line);
  EXPECT_EQ(line.substr(0, 25), "   all_reduce           2") << line;
  EXPECT_NE(line.find("   1K       0        0"), std::string::npos) << line;
  std::getline(lines, line);
  EXPECT_EQ(line.substr(0, 25), "   sendrecv             2") << line;
  std::getline(lines, line);
  EXPECT_EQ(line, "# Verdict: every value checked correct, no point failed");
  EXPECT_FALSE(std::getline(lines, line));
}

TEST(RunSummaryPrinter, FailedPointsAndWrongValuesFailTheVerdict) {
  std::vector<ResultRecord> records = {record("all_gather", 8, false, 4.0, 0.1), record("all_gather", 64, false, 4, 1)};
  records[0].wrong = 3;
  records[1].error = "timeout";
  std::ostringstream out;
  print_run_summary(out, summarize_run(records, "d"));
  EXPECT_NE(out.str().find("       3        1\n# Verdict: FAILED: 3 wrong values, 1 failed points\n"),
            std::string::npos)
      << out.str();
}

TEST(RunSummaryPrinter, NoRecordsNoRows) {
  std::ostringstream out;
  print_run_summary(out, summarize_run({}, "d"));
  EXPECT_EQ(out.str(),
            "#\n# Summary (files in d)\n"
            "#  op               ranks   latency (us)   at size   peak busbw (GB/s)   at size   wrong   failed\n"
            "# Verdict: every value checked correct, no point failed\n");
}

template <typename Print>
std::string text(Print print) {
  std::ostringstream out;
  print(out);
  return out.str();
}

// A run that predicted, replayed (the replay agreeing or not) and reported, 3 from its report.
RunOutcome replayed_outcome(bool agree) {
  RunOutcome o;
  o.sweep = summarize_run({record("sendrecv", 8, false, 3.0, 0.1)}, "d");
  o.prediction_verdict = "1F1B is fastest";
  RunReplay r;
  r.result = ReplayResult{"mpi", "host-sleep", 2, 3, {}, "", "", true, {}, {}};
  r.band = 0.05;
  r.agreement.compared = true;
  r.agreement.agree = agree;
  r.agreement.text = agree ? "prediction and replay agree" : "prediction and replay DISAGREE";
  o.replay = r;
  o.report = ReportFiles{"d/report.html", "d/report.md", "d/report.json", Status::kFail, "FAIL: 1 failed"};
  o.report_status = 3;
  o.exit_status = 3;
  return o;
}

TEST(RunOutcomePrinter, AnswerPutsAContradictingReplayFirstAsWarnAndAnAgreeingOneLast) {
  EXPECT_EQ(text([](std::ostream& out) { print_run_answer(out, replayed_outcome(false)); }),
            "# WARN: prediction and replay DISAGREE\n# Verdict: 1F1B is fastest\n");
  EXPECT_EQ(text([](std::ostream& out) { print_run_answer(out, replayed_outcome(true)); }),
            "# Verdict: 1F1B is fastest\n# Replay: prediction and replay agree\n");
  // A replay whose spread covers the difference neither agrees nor contradicts: said after the verdict.
  RunOutcome unsure = replayed_outcome(false);
  unsure.replay->agreement.inconclusive = true;
  unsure.replay->agreement.text = "prediction and replay inconclusive";
  EXPECT_EQ(text([&](std::ostream& out) { print_run_answer(out, unsure); }),
            "# Verdict: 1F1B is fastest\n# Replay: prediction and replay inconclusive\n");
  RunOutcome skipped = replayed_outcome(false);
  skipped.replay->result.reset();  // a skipped replay says nothing of the prediction
  EXPECT_EQ(text([&](std::ostream& out) { print_run_answer(out, skipped); }), "# Verdict: 1F1B is fastest\n");
  skipped.prediction_verdict.reset();  // no prediction, no answer
  EXPECT_EQ(text([&](std::ostream& out) { print_run_answer(out, skipped); }), "");
}

TEST(RunOutcomePrinter, ReplayIsItsHeaderAndTableOrWhySkipped) {
  const RunReplay replayed = *replayed_outcome(true).replay;
  EXPECT_EQ(text([&](std::ostream& out) { print_run_replay(out, replayed); }),
            "#\n# Replay: the plan's schedules on these 2 mpi ranks (compute host-sleep: the prediction's durations), "
            "3 iterations after one warm-up; file replay.json\n" +
                text([&](std::ostream& out) { print_replay_table(out, *replayed.result, 0.05, "default"); }));
  RunReplay skipped;
  skipped.plan_world = 4;
  skipped.processes = 1;
  skipped.devices_per_process = 8;
  EXPECT_EQ(text([&](std::ostream& out) { print_run_replay(out, skipped); }),
            "# Replay: skipped: it needs one process with one device per plan rank (4), this run has 1 process with "
            "8 devices each\n");
  skipped.processes = 2;
  skipped.devices_per_process = 1;
  EXPECT_NE(text([&](std::ostream& out) { print_run_replay(out, skipped); }).find("has 2 processes with 1 device each"),
            std::string::npos);
}

TEST(RunOutcomePrinter, SummaryFileIsTheAnswerThenEveryStepThenTheExitStatus) {
  const RunOutcome o = replayed_outcome(false);
  EXPECT_EQ(text([&](std::ostream& out) { print_run_file(out, o); }),
            text([&](std::ostream& out) { print_run_answer(out, o); }) + text([&](std::ostream& out) {
              print_run_summary(out, o.sweep);
            }) + "# Prediction verdict: 1F1B is fastest\n" +
                text([&](std::ostream& out) { print_run_replay(out, *o.replay); }) +
                "#\n# Report: FAIL: 1 failed (exit 3): d/report.html d/report.md d/report.json\n# Exit status 3\n");
}

TEST(RunOutcomePrinter, InterruptedRunNamesTheSignalInsteadOfTheReport) {
  RunOutcome o;
  o.sweep = summarize_run({}, "d");
  o.interrupted = o.exit_status = 130;
  EXPECT_EQ(text([&](std::ostream& out) { print_run_file(out, o); }),
            text([&](std::ostream& out) { print_run_summary(out, o.sweep); }) +
                "#\n# Interrupted by SIGINT: the steps after it (plan, prediction, replay, report) were not run\n"
                "# Exit status 130\n");
}

}  // namespace
}  // namespace pipebench
