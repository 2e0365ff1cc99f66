// SPDX-License-Identifier: Apache-2.0
// A process started by srun or torchrun as one of N ranks but seeing a world of 1 stops with one line and
// exit 2; a launch of 1 runs; a bad launcher variable is named.
#include <gtest/gtest.h>

#include "cli/run_pipebench.h"

namespace pipebench {
namespace {

TEST(LaunchEnvE2e, AWorldOfOneUnderALauncherOfManyStops) {
  const auto torch = e2e::run_shell("RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(torch.status, 2) << torch.out << torch.err;
  EXPECT_EQ(torch.err,
            "pipebench: launched by torchrun as rank 0 of 2 (RANK=0 WORLD_SIZE=2 LOCAL_RANK=0), but MPI sees a world "
            "of 1: torchrun starts no MPI job; launch pipebench with mpirun or srun --mpi=pmix\n");
  EXPECT_EQ(torch.out.find("Collective test"), std::string::npos) << torch.out;
  const auto srun = e2e::run_shell("SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=4 SLURM_LOCALID=1 " PIPEBENCH_BIN
                                   " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(srun.status, 2);
  EXPECT_NE(srun.err.find("launched by srun as rank 1 of 4"), std::string::npos) << srun.err;
}

TEST(LaunchEnvE2e, ALaunchOfOneRunsAndBadVariablesAreNamed) {
  const auto one = e2e::run_shell("RANK=0 WORLD_SIZE=1 " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8 --quiet");
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_NE(one.out.find("# Avg bus bandwidth"), std::string::npos) << one.out;
  const auto bad = e2e::run_shell("RANK=one WORLD_SIZE=2 " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "pipebench: RANK=one: not a whole number in [0, 16777216]\n");
}

}  // namespace
}  // namespace pipebench
