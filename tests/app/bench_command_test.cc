// SPDX-License-Identifier: Apache-2.0
#include "app/bench_command.h"

#include <gtest/gtest.h>

#include "app/nccl_tests_mode.h"
#include "cli/run_pipebench.h"

namespace pipebench {
namespace {

// bench: 3 wrong data, 1 a failed point, 7 a low NCCL_TESTS_MIN_BW average; as an nccl-tests binary, 7 for
// wrong data too (nccl-tests' testNumResults).
TEST(BenchExitStatus, NcclTestsCodesWhereNcclTestsHasThem) {
  SweepSummary clean, wrong, failed;
  wrong.wrong = 4;
  failed.errors = 1;
  EXPECT_EQ(exit_status(clean, false, false), 0);
  EXPECT_EQ(exit_status(clean, true, false), 7);
  EXPECT_EQ(exit_status(wrong, false, false), 3);
  EXPECT_EQ(exit_status(wrong, true, false), 3);
  EXPECT_EQ(exit_status(failed, true, false), 1);
  EXPECT_EQ(exit_status(wrong, false, true), 7);
  EXPECT_EQ(exit_status(clean, true, true), 7);
  EXPECT_EQ(exit_status(failed, false, true), 1);
  EXPECT_EQ(exit_status(clean, false, true), 0);
}

TEST(NcclTestsMode, BinaryNamesMapToOps) {
  EXPECT_EQ(nccl_tests_binary_op("/opt/x/all_reduce_perf"), "all_reduce");
  EXPECT_EQ(nccl_tests_binary_op("alltoall_perf"), "alltoall");
  EXPECT_EQ(nccl_tests_binary_op("sendrecv_perf"), "sendrecv");
  EXPECT_EQ(nccl_tests_binary_op("pipebench"), "");
  EXPECT_EQ(nccl_tests_binary_op("hypercube_perf"), "");  // no op here: no link, no name
  EXPECT_EQ(nccl_tests_binary_op("all_reduce_perf.sh"), "");
  const std::vector<std::string> words = nccl_tests_words("./build/bin/gather_perf", {"-b", "8"});
  EXPECT_EQ(words,
            (std::vector<std::string>{"bench", "--op", "gather", "--nccl-tests-name", "gather_perf", "-b", "8"}));
  EXPECT_EQ(nccl_tests_user_args(words), (std::vector<std::string>{"gather_perf", "-b", "8"}));
  EXPECT_EQ(nccl_tests_binaries().size(), 9u);
  // nccl-tests' --op is its -o, the reduction.
  EXPECT_EQ(nccl_tests_words("all_reduce_perf", {"--op", "prod", "--op=max"}),
            (std::vector<std::string>{"bench", "--op", "all_reduce", "--nccl-tests-name", "all_reduce_perf", "--redop",
                                      "prod", "--redop=max"}));
}

// Without mpirun the mpi backend has one host rank and every busbw is 0: the first line of what bench prints
// says so and gives the command to run instead; on stdout, so that bad input stays one line on stderr.
TEST(BenchCommandE2e, OneMpiRankSaysSoInItsFirstLine) {
  // Both streams as one, in the order written: the line must come before the preamble on stdout.
  const auto r = e2e::run_shell("( " PIPEBENCH_BIN " bench --backend mpi -b 1K -e 1K -n 2 -w 1 --reps 2 2>&1 )");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string first = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(first.rfind("# 1 rank: the mpi backend runs one host rank per process", 0), 0u) << r.out;
  EXPECT_NE(first.find("run `mpirun -np 2 pipebench bench --backend mpi -b 1K -e 1K -n 2 -w 1 --reps 2` instead"),
            std::string::npos)
      << first;
}

}  // namespace
}  // namespace pipebench
