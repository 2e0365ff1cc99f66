// SPDX-License-Identifier: Apache-2.0
// pairs and replay, started plainly without a GPU, start themselves under mpirun on the MPI backend as
// run does (the built binary, end to end). Three host ranks on a machine with fewer cores need
// --oversubscribe, which the relaunch adds itself: the test leaves Open MPI's own switch for it unset.
#include "app/host_relaunch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/run_pipebench.h"
#include "launch/mpirun_relaunch.h"

namespace pipebench {
namespace {

using e2e::Result;
using e2e::run;

std::string tmp(const std::string& name) { return "/tmp/pipebench_relaunch_" + std::to_string(getpid()) + "_" + name; }

class HostRelaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_in_path("mpirun").empty()) GTEST_SKIP() << "no mpirun on PATH";
    unsetenv("OMPI_MCA_rmaps_base_oversubscribe");
  }
};

TEST_F(HostRelaunch, PairsStartsItsHostRanksUnderMpirun) {
  const Result r = run("pairs --backend mpi --host-ranks 3 --sizes 4K -n 2 -w 1 --reps 2");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(
      r.out.rfind("# no GPU visible (--backend mpi): running on the MPI backend with 3 host ranks (mpirun -np 3)\n", 0),
      0u)
      << r.out;
  EXPECT_NE(r.out.find("# pipebench pairs: 3 ranks on the mpi backend"), std::string::npos) << r.out;
}

TEST_F(HostRelaunch, ReplayStartsThePlansWorldUnderMpirun) {
  const std::string plan = tmp("plan.json");
  const Result p = run("plan --json " + plan +
                       " -- --num-layers 4 --hidden-size 128 --num-attention-heads 4 --seq-length 32 "
                       "--max-position-embeddings 32 --micro-batch-size 1 --global-batch-size 4 "
                       "--pipeline-model-parallel-size 2 --world-size 2 --vocab-size 512 --fp16");
  ASSERT_EQ(p.status, 0) << p.err;
  const Result r = run("replay --plan " + plan + " --backend mpi --fwd-ms-per-layer 0.1 --no-predict --iterations 1");
  std::remove(plan.c_str());
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(
      r.out.rfind("# no GPU visible (--backend mpi): running on the MPI backend with 2 host ranks (mpirun -np 2)\n", 0),
      0u)
      << r.out;
  EXPECT_NE(r.out.find("on 2 ranks (mpi backend"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipebench
