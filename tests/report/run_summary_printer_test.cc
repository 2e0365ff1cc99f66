// SPDX-License-Identifier: Apache-2.0
// run's summary table from a few records: the latency of the smallest out-of-place size, the peak bus
// bandwidth, wrong values and failed points per op, and the verdict line they decide.
#include "report/run_summary_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

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

}  // namespace
}  // namespace pipebench
