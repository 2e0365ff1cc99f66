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
  EXPECT_NE(s.find("# Wrong values        : 0 OK"), std::string::npos);
}

TEST(ConsoleTable, WrongValuesFailTheFooter) {
  std::ostringstream out;
  ConsoleTable t(out);
  t.add(rec(false, 1.0, 3));
  t.add(rec(true, 1.0, 0));
  t.end_op();
  EXPECT_NE(out.str().find("# Wrong values        : 3 FAILED"), std::string::npos) << out.str();
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
  EXPECT_NE(out.str().find("# Failed points       : 1"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
