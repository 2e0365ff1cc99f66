// SPDX-License-Identifier: Apache-2.0
// The console text of `pairs` for small hand-made values: the header of host ranks, a matrix with a
// measured, an unmeasured and a diagonal cell, and the verdict lines.
#include "report/pairs_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace pipebench {
namespace {

TEST(PairsPrinter, HeaderOfHostRanksNamesSizesAndNoClasses) {
  std::ostringstream out;
  print_pairs_header(out, 2, "mpi", false, {4096, 64u << 20}, nullptr);
  EXPECT_EQ(out.str(),
            "# pipebench pairs: 2 ranks on the mpi backend, one pair at a time; sizes 4K 64M\n"
            "# host ranks have no link classes: the MPI backend moves host memory between processes\n");
}

TEST(PairsPrinter, OneRankHasNoPair) {
  std::ostringstream out;
  print_pairs_header(out, 1, "nccl", true, {4096}, nullptr);
  EXPECT_EQ(out.str(),
            "# pipebench pairs: 1 rank on the nccl backend, one pair at a time; sizes 4K\n"
            "# 1 rank: no pair to measure (pairs needs 2 GPUs, or mpirun -np 2 or more)\n");
}

TEST(PairsPrinter, MatrixRowIsSenderAndUnmeasuredIsADot) {
  std::ostringstream out;
  print_pair_matrix(out, "unidirectional send/recv at 4K", 2, {{{0, 1}, 12.5}}, nullptr);
  EXPECT_EQ(out.str(),
            "#\n# unidirectional send/recv at 4K\n"
            "#   row = sender, column = receiver; GB/s per direction (% of the path's theoretical)\n"
            "#               rank 0        rank 1\n"
            "  rank 0               -         12.50\n"
            "  rank 1               .             -\n");
}

TEST(PairsPrinter, VerdictNamesWrongValuesAndFailedPoints) {
  SweepSummary ok;
  std::ostringstream good;
  print_pairs_verdict(good, ok);
  EXPECT_EQ(good.str(), "#\n# Wrong values: 0 OK\n");
  SweepSummary bad;
  bad.wrong = 3;
  bad.errors = 1;
  std::ostringstream failed;
  print_pairs_verdict(failed, bad);
  EXPECT_EQ(failed.str(), "#\n# Wrong values: 3 FAILED\n# Failed points: 1\n");
}

}  // namespace
}  // namespace pipebench
