// SPDX-License-Identifier: Apache-2.0
// bench --plan's console text for small hand-made values: the header with and without at-once points, a
// row of a pair, a row of a batch with many ids and a failed point, and the verdict lines.
#include "report/plan_bench_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace pipebench {
namespace {

const std::string kColumns =
    "#  op              group               elements  dtype          bytes      time (us)    algbw    busbw  "
    "#wrong  class  plan ids            batch (Megatron call)\n";

TEST(PlanBenchPrinter, HeaderNamesThePlanAndItsAtOncePoints) {
  std::ostringstream out;
  print_plan_bench_header(out, "p.json", "", 19, 2, 2, "mpi", 2);
  print_plan_bench_header(out, "p.json", "1f1b", 1, 0, 1, "nccl", 4);
  EXPECT_EQ(out.str(),
            "# pipebench bench --plan p.json: 19 distinct messages over all schedules on 2 mpi ranks (plan world 2), "
            "then 2 gradient reductions of every group at once (\"OP xN\": N groups together)\n" +
                kColumns +
                "# pipebench bench --plan p.json: 1 distinct messages of schedule 1f1b on 1 nccl rank (plan world "
                "4)\n" +
                kColumns);
}

TEST(PlanBenchPrinter, RowsOfAPairAndOfAFailedBatch) {
  ResultRecord pair;
  pair.time_us = 12.5;
  pair.algbw_gbps = 1.25;
  pair.busbw_gbps = 1.25;
  pair.wrong = 0;
  pair.plan_ids = {3, 7};
  ResultRecord batch = pair;
  batch.plan_ids = {1, 2, 3, 4, 5, 6, 7};
  batch.error = "timed out";
  std::ostringstream out;
  print_plan_bench_row(out, pair, "pair fwd", {0, 1}, 1024, DType::kHalf, 2048, "NV18", "");
  print_plan_bench_row(out, batch, "batch of 3", {0, 1, 2, 3, 4, 5, 6}, 8, DType::kFloat, 32, "", "send_forward");
  EXPECT_EQ(out.str(),
            "   pair fwd        {0,1}                    1024  half             2048          12.50     1.25     1.25"
            "       0  NV18   3,7\n"
            "   batch of 3      {0,1,2,3,4,5,...}           8  float              32          12.50     1.25     1.25"
            "       0  -      1,2,3,4,5,6,... (7) send_forward\n"
            "#   error: timed out\n");
}

TEST(PlanBenchPrinter, VerdictListsWhatWasLeftOut) {
  SweepSummary ok;
  SweepSummary bad;
  bad.wrong = 4;
  bad.errors = 1;
  std::ostringstream out;
  print_plan_bench_verdict(out, {}, ok);
  print_plan_bench_verdict(out, {"pair {0,5} 8 x float: needs rank 5, only 2 here"}, bad);
  EXPECT_EQ(out.str(),
            "# Wrong values: 0 OK\n"
            "# left out: pair {0,5} 8 x float: needs rank 5, only 2 here\n"
            "# Wrong values: 4 FAILED\n"
            "# Failed points: 1\n");
}

}  // namespace
}  // namespace pipebench
