// SPDX-License-Identifier: Apache-2.0
// nccl-tests' lines against nccl-tests 2.19's own output (tests/fixtures/nccl-tests/*-2.19.log): each
// device, header and footer line of the logs, read back into its fields and written again, must come out
// character for character.
#include "report/nccl_tests_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

std::vector<std::string> fixture_lines(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nccl-tests/" + name);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l + "\n");
  return lines;
}

std::vector<std::string> starting_with(const std::vector<std::string>& lines, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  }
  return out;
}

TEST(NcclTestsText, DeviceLinesMatchNcclTests219) {
  const auto lines = starting_with(fixture_lines("all_reduce_perf-2.19.log"), "#  Rank");
  ASSERT_EQ(lines.size(), 8u);
  for (const auto& line : lines) {
    // nccl-tests' own reading of its line (util.cu parseRankInfo).
    int rank = 0, group = 0, pid = 0, device = 0;
    char host[1024], bus[128], model[1024];
    ASSERT_EQ(std::sscanf(line.c_str(), "#  Rank %d Group %d Pid %d on %1023s device %d [%127[^]]] %1023[^\n]", &rank,
                          &group, &pid, host, &device, bus, model),
              7)
        << line;
    EXPECT_EQ(nccl_tests_device_line(rank, group, pid, host, device, bus, model), line);
    // pipebench's bus ids carry the function number; nccl-tests prints domain:bus:device.
    EXPECT_EQ(nccl_tests_device_line(rank, group, pid, host, device, std::string(bus) + ".0", model), line);
  }
}

TEST(NcclTestsText, HostRanksHaveALineNcclTestsParsersRead) {
  const std::string line = nccl_tests_device_line(3, 1, 4242, "node7", -1, "", "host memory");
  EXPECT_EQ(line, "#  Rank  3 Group  1 Pid   4242 on      node7 device -1 [host] host memory\n");
  int rank = 0, group = 0, pid = 0, device = 0;
  char host[64], bus[64], model[64];
  EXPECT_EQ(std::sscanf(line.c_str(), "#  Rank %d Group %d Pid %d on %63s device %d [%63[^]]] %63[^\n]", &rank, &group,
                        &pid, host, &device, bus, model),
            7);
}

TEST(NcclTestsText, ColumnHeaderMatchesNcclTests219) {
  const auto lines = fixture_lines("all_reduce_perf-2.19.log");
  std::string header;
  for (std::size_t i = 0; i + 2 < lines.size(); ++i) {
    if (lines[i].find("out-of-place") != std::string::npos) header = lines[i] + lines[i + 1] + lines[i + 2];
  }
  ASSERT_NE(header.find("(elements)"), std::string::npos) << header;
  EXPECT_EQ(nccl_tests_column_header(false, false), header);
  EXPECT_NE(nccl_tests_column_header(true, false).find("cputime"), std::string::npos);
  EXPECT_NE(nccl_tests_column_header(false, true).find("          timestamp\n"), std::string::npos);
}

TEST(NcclTestsText, FooterLinesMatchNcclTests219) {
  std::vector<std::string> lines = fixture_lines("all_reduce_perf-2.19.log");
  for (const auto& l : fixture_lines("other_ops-2.19.log")) lines.push_back(l);
  const auto bounds = starting_with(lines, "# Out of bounds values");
  const auto avg = starting_with(lines, "# Avg bus bandwidth");
  ASSERT_GE(bounds.size(), 5u);  // every test of both logs
  ASSERT_EQ(avg.size(), bounds.size());
  for (const auto& line : bounds) EXPECT_EQ(nccl_tests_out_of_bounds_line(0), line);
  for (const auto& line : avg) {
    double gbps = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "# Avg bus bandwidth    : %lf", &gbps), 1) << line;
    EXPECT_EQ(nccl_tests_avg_busbw_line(gbps, std::nullopt), line);
  }
  EXPECT_EQ(nccl_tests_out_of_bounds_line(3), "# Out of bounds values : 3 FAILED\n");
}

// The average is over every placement of every row (common.cu bw[0] / bw_count[0]): the fixture's rows
// (printed to 2 decimals) give its footer's 102.593 to within their rounding.
TEST(NcclTestsText, AverageIsOverEveryPlacementOfEveryRow) {
  NcclTestsTotals totals;
  for (const auto& line : fixture_lines("all_reduce_perf-2.19.log")) {
    std::istringstream in(line);
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    if (f.size() != 13 || f[0] == "#") continue;
    totals.add(std::stod(f[7]), 0);
    totals.add(std::stod(f[11]), 0);
  }
  EXPECT_EQ(totals.placements(), 28);
  EXPECT_NEAR(totals.avg_busbw_gbps(), 102.593, 0.005);
  totals.add(0, 2);
  EXPECT_EQ(totals.out_of_bounds(), 2);
}

TEST(NcclTestsText, MinimumBandwidthHasNcclTestsTenPercentSlack) {
  EXPECT_FALSE(below_min_busbw(90.0, 100.0));
  EXPECT_TRUE(below_min_busbw(89.9, 100.0));
  EXPECT_FALSE(below_min_busbw(0.0, std::nullopt));
  EXPECT_EQ(nccl_tests_avg_busbw_line(95, 100.0), "# Avg bus bandwidth    : 95 OK\n");
  EXPECT_EQ(nccl_tests_avg_busbw_line(0, 100.0), "# Avg bus bandwidth    : 0 FAILED\n");
}

TEST(NcclTestsText, MinimumBandwidthFromTheEnvironmentIsChecked) {
  unsetenv("NCCL_TESTS_MIN_BW");
  EXPECT_FALSE(min_busbw_from_environment());
  setenv("NCCL_TESTS_MIN_BW", "150.5", 1);
  EXPECT_DOUBLE_EQ(min_busbw_from_environment().value(), 150.5);
  for (const char* bad : {"fast", "-1", "nan", "12GB"}) {
    setenv("NCCL_TESTS_MIN_BW", bad, 1);
    try {
      (void)min_busbw_from_environment();
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("NCCL_TESTS_MIN_BW '") + bad + "'"), std::string::npos);
    }
  }
  unsetenv("NCCL_TESTS_MIN_BW");
}

ResultRecord row(const std::string& op, double busbw) {
  ResultRecord r;
  r.op = op;
  r.busbw_gbps = busbw;
  return r;
}

TEST(MinBusBwCheck, EachOpsAverageIsChecked) {
  MinBusBwCheck fast(10.0);
  fast.add(row("all_reduce", 20));
  fast.add(row("all_reduce", 0));  // average 10: passes
  fast.finish();
  EXPECT_FALSE(fast.failed());
  MinBusBwCheck slow(10.0);
  slow.add(row("all_reduce", 20));
  slow.add(row("all_gather", 5));  // the second op's average fails
  slow.finish();
  EXPECT_TRUE(slow.failed());
  MinBusBwCheck unset(std::nullopt);
  unset.add(row("all_reduce", 0));
  unset.finish();
  EXPECT_FALSE(unset.failed());
}

}  // namespace
}  // namespace pipebench
