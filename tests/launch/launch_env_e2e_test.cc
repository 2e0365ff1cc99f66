// SPDX-License-Identifier: Apache-2.0
// A process started by srun or torchrun as one of N ranks but seeing a world of 1 stops with one line and
// exit 2; a launch of 1 runs; a bad launcher variable is named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>

#include "cli/run_pipebench.h"

namespace pipebench {
namespace {

TEST(LaunchEnvE2e, AWorldOfOneUnderALauncherOfManyStops) {
  const auto torch = e2e::run_shell("RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(torch.status, 2) << torch.out << torch.err;
  EXPECT_EQ(torch.err,
            "pipebench: launched by torchrun as rank 0 of 2 (RANK=0 WORLD_SIZE=2 LOCAL_RANK=0), but MPI sees a world "
            "of 1: torchrun starts no MPI job; set MASTER_ADDR and MASTER_PORT (the ranks then meet over TCP, nccl "
            "backend), or launch pipebench with mpirun or srun --mpi=pmix\n");
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

// Hostile launcher variables through the binary: one line naming the variable and value, exit 2, nothing
// measured, within the test's timeout (never a hang in MPI_Init, never a world of 1 with status 0).
TEST(LaunchEnvE2e, HostileLauncherVariablesStopWithOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"OMPI_COMM_WORLD_RANK=' 0' OMPI_COMM_WORLD_SIZE=1", "pipebench: OMPI_COMM_WORLD_RANK= 0: not a whole number"},
      {"RANK=+0 WORLD_SIZE=1", "pipebench: RANK=+0: not a whole number"},
      {"OMPI_COMM_WORLD_SIZE=2", "pipebench: OMPI_COMM_WORLD_SIZE=2 is set but OMPI_COMM_WORLD_RANK is not"},
      {"OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=9223372036854775808",
       "pipebench: OMPI_COMM_WORLD_SIZE=9223372036854775808: not a whole number"},
      {"OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=2",
       "pipebench: OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=2: the rank is not below the number of ranks"},
      {"PMIX_RANK=-1", "pipebench: PMIX_RANK=-1: not a whole number"},
      {"PMIX_RANK=3", "pipebench: launched by a PMIx launcher as rank 3 (PMIX_RANK=3), but MPI sees a world of 1"},
      {"SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=''", "pipebench: SLURM_STEP_NUM_TASKS=: not a whole number"},
  };
  for (const auto& [vars, message] : cases) {
    const auto r = e2e::run_shell(std::string("timeout 60 env ") + vars +
                                  " " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8 --quiet");
    EXPECT_EQ(r.status, 2) << vars << ": " << r.err;
    EXPECT_EQ(r.err.rfind(message, 0), 0U) << vars << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << vars << ": " << r.err;
    EXPECT_EQ(r.out.find("Avg bus bandwidth"), std::string::npos) << vars;
  }
}

// A torchrun-style launch (MASTER_ADDR, MASTER_PORT) takes the TCP rendezvous: two ranks agree over it
// (rank 1's bad argument is named by rank 0, as under mpirun), --backend mpi says why it cannot run, and a
// bad port is one line. The port: one per test process, away from torchrun's default 29500.
TEST(LaunchEnvE2e, ATorchrunLaunchMeetsOverTcp) {
  const std::string port = std::to_string(30000 + getpid() % 20000);
  const std::string env =
      "WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + port + " PIPEBENCH_RENDEZVOUS_TIMEOUT_S=30 ";
  const auto two =
      e2e::run_shell("(RANK=1 " + env + PIPEBENCH_BIN " bench -b 8 -e 8 --op bogus 2>/dev/null &) ; RANK=0 " + env +
                     PIPEBENCH_BIN " bench -b 8 -e 8");
  EXPECT_EQ(two.status, 2) << two.out << two.err;
  EXPECT_NE(two.err.find("pipebench: rank 1: --op: unknown op 'bogus'"), std::string::npos) << two.err;
  const std::string one = "RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + port + " ";
  const auto mpi = e2e::run_shell(one + PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(mpi.status, 2);
  EXPECT_NE(mpi.err.find("pipebench: --backend mpi: this process was launched torchrun-style"), std::string::npos)
      << mpi.err;
  const auto port_bad =
      e2e::run_shell("RANK=0 WORLD_SIZE=1 MASTER_ADDR=h MASTER_PORT=99999 " PIPEBENCH_BIN " bench -b 8 -e 8");
  EXPECT_EQ(port_bad.status, 2);
  EXPECT_EQ(port_bad.err, "pipebench: MASTER_PORT=99999: not a port number in [1, 65535]\n");
}

// Rank 0 of a torchrun-style launch tells what needs no other rank (a flag that does not parse, sizes the wrong
// way round, --backend mpi without MPI) at once, in one line and exit 2, not once the others joined or its
// 30 s wait for them ran out.
TEST(LaunchEnvE2e, ATorchrunRankZeroTellsItsOwnBadFlagsBeforeTheRendezvous) {
  const std::string port = std::to_string(30000 + (getpid() + 7) % 20000);
  const std::string env =
      "RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + port + " PIPEBENCH_RENDEZVOUS_TIMEOUT_S=30 ";
  const std::pair<std::string, std::string> cases[] = {
      {"bench --backend mpi -b 8 -e 8", "pipebench: --backend mpi: this process was launched torchrun-style"},
      {"bench --bogus -b 8 -e 8", "pipebench: bench: unknown flag --bogus"},
      {"bench -b 1M -e 8", "pipebench: "},
  };
  for (const auto& [args, needle] : cases) {
    const auto r = e2e::run_shell(env + PIPEBENCH_BIN " " + args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(needle, 0), 0u) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("rendezvous"), std::string::npos) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace pipebench
