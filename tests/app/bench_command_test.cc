// SPDX-License-Identifier: Apache-2.0
#include "app/bench_command.h"

#include <gtest/gtest.h>

#include "cli/run_pipebench.h"

namespace pipebench {
namespace {

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

// nccl-tests' JSON holds one op's sweep: bench --plan refuses -J in one line (its other outputs it writes).
TEST(BenchCommandE2e, PlanRefusesNcclTestsJson) {
  const auto r = e2e::run("bench --plan plan.json -J nt.json");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err,
            "pipebench: -J nt.json: nccl-tests' JSON holds one op's sweep, not a plan's messages (use --json)\n");
}

}  // namespace
}  // namespace pipebench
