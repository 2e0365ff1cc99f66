// SPDX-License-Identifier: Apache-2.0
#include "report/console_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pipebench {
namespace {

ResultRecord rec(bool in_place, double time_us, std::int64_t wrong = 0) {
  ResultRecord r;
  r.op = "all_reduce";
  r.dtype = "float";
  r.redop = "sum";
  r.size_bytes = 8;
  r.count = 2;
  r.in_place = in_place;
  r.time_us = time_us;
  r.algbw_gbps = 0.0;
  r.busbw_gbps = 0.0;
  r.wrong = wrong;
  return r;
}

TEST(FormatFixedWidth, DropsDecimalsAsTheValueGrowsLikeNcclTests) {
  EXPECT_EQ(format_fixed_width(5.98, 7), "   5.98");
  EXPECT_EQ(format_fixed_width(12345.678, 7), "12345.7");
  EXPECT_EQ(format_fixed_width(1234567.0, 7), "1234567");
  EXPECT_EQ(format_fixed_width(123456789.0, 7), "1.2e+08");
  EXPECT_EQ(format_fixed_width(0.0, 6), "  0.00");
}

// The row layout is nccl-tests' (copied from its output on one H200).
TEST(ConsoleTable, RowMatchesNcclTestsColumns) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto a = rec(false, 5.98);
  auto b = rec(true, 0.33);
  b.algbw_gbps = 0.02;
  t.add(a);
  t.add(b);
  t.end_op();
  const std::string s = out.str();
  EXPECT_NE(s.find("           8             2     float     sum      -1     5.98    0.00    0.00       0     0.33    "
                   "0.02    0.00       0\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("# Collective test starting: all_reduce"), std::string::npos);
  EXPECT_NE(s.find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0 \n"), std::string::npos) << s;
}

// A placement nccl-tests does not check (sendrecv and alltoall in place, or -c 0) ends in "    N/A", as
// in sendrecv_perf's own output (tests/fixtures/nccl-tests/sendrecv_perf-2.19.log, first row).
TEST(ConsoleTable, UncheckedPlacementEndsAsNcclTestsDoes) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto a = rec(false, 9.12);
  auto b = rec(true, 9.08, -1);
  a.op = b.op = "sendrecv";
  t.add(a);
  t.add(b);
  t.end_op();
  EXPECT_NE(out.str().find("           8             2     float     sum      -1     9.12    0.00    0.00       0     "
                           "9.08    0.00    0.00    N/A\n"),
            std::string::npos)
      << out.str();
}

// nccl-tests counts the processes whose check failed, per placement (common.cu CheckData); a record without
// that count still fails the footer.
TEST(ConsoleTable, WrongValuesFailTheFooter) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto a = rec(false, 1.0, 3);
  a.out_of_bounds = 2;
  t.add(a);
  t.add(rec(true, 1.0, 5));
  t.end_op();
  EXPECT_NE(out.str().find("# Out of bounds values : 3 FAILED"), std::string::npos) << out.str();
}

// The average over every placement of every row, then pipebench's peak line, then nccl-tests' closing lines.
TEST(ConsoleTable, FooterHasNcclTestsAverageThenThePeak) {
  std::ostringstream out;
  ConsoleTable t(out);
  for (double bw : {10.0, 20.0, 30.0, 40.0}) {
    auto r = rec(bw == 20.0 || bw == 40.0, 1.0);
    r.size_bytes = bw < 25 ? 8 : 16;
    r.busbw_gbps = bw;
    t.add(r);
  }
  t.end_op();
  EXPECT_NE(out.str().find("# Out of bounds values : 0 OK\n"
                           "# Avg bus bandwidth    : 25 \n"
                           "# Peak bus bandwidth   : 40.00 GB/s"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("#\n# Collective test concluded: all_reduce\n"), std::string::npos) << out.str();
}

// As an nccl-tests binary: no per-op opening line, no peak line, the binary's name and nccl-tests' last lines,
// and NCCL_TESTS_MIN_BW's verdict on the average line.
TEST(ConsoleTable, NcclTestsStyleEndsAsNcclTestsDoes) {
  std::ostringstream out;
  ConsoleTable t(out, ConsoleStyle{"all_reduce_perf", 100.0, false, false});
  auto a = rec(false, 1.0);
  a.busbw_gbps = 50;
  t.add(a);
  t.finish();
  const std::string s = out.str();
  EXPECT_EQ(s.find("# Collective test starting"), std::string::npos) << s;
  EXPECT_EQ(s.find("# Peak bus bandwidth"), std::string::npos) << s;
  EXPECT_NE(s.find("# Avg bus bandwidth    : 50 FAILED\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"),
            std::string::npos)
      << s;
}

// --split: the table shows the row over all groups; each group's own record is for the files.
TEST(ConsoleTable, SplitGroupRecordsAreNotRows) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto all = rec(false, 1.0);
  all.split_aggregate = true;
  all.op_has_in_place = false;
  auto group = all;
  group.split_aggregate = false;
  group.split_group = 1;
  group.time_us = 777.0;
  t.add(all);
  t.add(group);
  t.end_op();
  EXPECT_EQ(out.str().find("777"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("     1.00"), std::string::npos) << out.str();
}

TEST(ConsoleTable, OpsWithoutInPlacePrintNotApplicable) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto r = rec(false, 2.0);
  r.op = "sendrecv";
  r.redop = "none";
  r.op_has_in_place = false;
  t.add(r);
  EXPECT_NE(out.str().find("      N/A     N/A     N/A     N/A\n"), std::string::npos) << out.str();
}

TEST(ConsoleTable, FailedPointsShowTheError) {
  std::ostringstream out;
  ConsoleTable t(out);
  auto r = rec(false, 0);
  r.error = "ncclAllReduce failed";
  t.add(r);
  t.add(rec(true, 1.0));
  t.end_op();
  EXPECT_NE(out.str().find("error (out-of-place): ncclAllReduce failed"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("# Failed points        : 1"), std::string::npos);
}

// "Is this number normal?": the peak against the link, the class's band, and the points at >= 1 GiB below it.
TEST(ConsoleTable, LinkLinesGiveTheShareOfTheLinkAndTheBand) {
  std::ostringstream out;
  ConsoleTable t(out);
  for (std::uint64_t size : {std::uint64_t{1} << 20, std::uint64_t{1} << 30, std::uint64_t{1} << 31}) {
    for (bool in_place : {false, true}) {
      auto r = rec(in_place, 1.0);
      r.size_bytes = size;
      r.link_class = "NV18";
      r.path_min_gbps = 450.0;
      // 1 MiB is slow but not judged; 1 GiB out-of-place (200) is below 337.5; 2 GiB reaches 370.
      r.busbw_gbps =
          size == (std::uint64_t{1} << 31) ? 370.0 : (size == (std::uint64_t{1} << 30) && !in_place ? 200.0 : 350.0);
      if (size == (std::uint64_t{1} << 20)) r.busbw_gbps = 10.0;
      t.add(r);
    }
  }
  t.end_op();
  const std::string s = out.str();
  EXPECT_NE(s.find("# Link                 : NV18 450.00 GB/s per direction; the peak is 82.2 % of it\n"
                   "# Link band            : normal for NV18 at >= 1 GiB: 338-482 GB/s (NVLink; "),
            std::string::npos)
      << s;
  EXPECT_NE(
      s.find("# Below the link band  : 1 point at >= 1 GiB; lowest 200.00 GB/s at 1G (out-of-place), 44.4 % of NV18\n"),
      std::string::npos)
      << s;
}

// Host ranks (no link known) and an nccl-tests binary's output have no link lines.
TEST(ConsoleTable, NoLinkLinesWithoutALinkOrAsAnNcclTestsBinary) {
  for (const bool as_binary : {false, true}) {
    std::ostringstream out;
    ConsoleTable t(out, as_binary ? ConsoleStyle{"all_reduce_perf", std::nullopt, false, false} : ConsoleStyle{});
    auto r = rec(false, 1.0);
    r.busbw_gbps = 5;
    if (as_binary) {
      r.link_class = "NV18";
      r.path_min_gbps = 450.0;
    }
    t.add(r);
    t.finish();
    EXPECT_EQ(out.str().find("# Link"), std::string::npos) << out.str();
  }
}

}  // namespace
}  // namespace pipebench
