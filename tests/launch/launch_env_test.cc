// SPDX-License-Identifier: Apache-2.0
// Launcher variables: which launcher, rank and size; bad values named; a world that disagrees.
#include "launch/launch_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace pipebench {
namespace {

EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(LaunchEnv, NoLauncher) {
  EXPECT_FALSE(launch_from_env(env_of({})));
  // A Slurm batch script: the allocation's task count, but no srun step.
  EXPECT_FALSE(launch_from_env(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_JOB_ID", "77"}})));
}

TEST(LaunchEnv, SrunWithPmix) {
  const auto l = launch_from_env(
      env_of({{"SLURM_PROCID", "5"}, {"SLURM_STEP_NUM_TASKS", "8"}, {"SLURM_LOCALID", "1"}, {"PMIX_RANK", "5"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->launcher, "srun");
  EXPECT_EQ(l->rank, 5);
  EXPECT_EQ(l->size, 8);
  EXPECT_EQ(l->local_rank, 1);
  EXPECT_EQ(l->local_size, -1);
  EXPECT_EQ(l->variables, "SLURM_PROCID=5 SLURM_STEP_NUM_TASKS=8 SLURM_LOCALID=1");
}

TEST(LaunchEnv, OpenMpiComesFirstThenPmiThenTorchrun) {
  const auto ompi = launch_from_env(env_of({{"OMPI_COMM_WORLD_RANK", "1"},
                                            {"OMPI_COMM_WORLD_SIZE", "2"},
                                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                            {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                            {"SLURM_PROCID", "0"},
                                            {"SLURM_STEP_NUM_TASKS", "1"}}));
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->launcher, "mpirun");
  EXPECT_EQ(ompi->local_size, 2);
  const auto pmi = launch_from_env(env_of({{"PMI_RANK", "3"}, {"PMI_SIZE", "4"}}));
  ASSERT_TRUE(pmi);
  EXPECT_EQ(pmi->launcher, "pmi");
  EXPECT_EQ(pmi->rank, 3);
  const auto torch = launch_from_env(env_of({{"RANK", "2"},
                                             {"WORLD_SIZE", "4"},
                                             {"LOCAL_RANK", "0"},
                                             {"LOCAL_WORLD_SIZE", "2"},
                                             {"MASTER_ADDR", "node1"},
                                             {"MASTER_PORT", "29500"}}));
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->launcher, "torchrun");
  EXPECT_EQ(torch->size, 4);
  EXPECT_EQ(torch->local_size, 2);
}

TEST(LaunchEnv, BadValuesAreNamed) {
  auto error = [](const std::map<std::string, std::string>& vars) {
    try {
      (void)launch_from_env(env_of(vars));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error({{"RANK", "x"}, {"WORLD_SIZE", "2"}}), "RANK=x: not a whole number in [0, 16777216]");
  EXPECT_EQ(error({{"RANK", "0"}, {"WORLD_SIZE", "0"}}), "WORLD_SIZE=0: not a whole number in [1, 16777216]");
  EXPECT_EQ(error({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}), "RANK=-1: not a whole number in [0, 16777216]");
  EXPECT_EQ(error({{"SLURM_PROCID", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}}),
            "SLURM_PROCID=4 SLURM_STEP_NUM_TASKS=4: the rank is not below the number of ranks");
  EXPECT_EQ(
      error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}}),
      "RANK=0 WORLD_SIZE=2 LOCAL_RANK=2 LOCAL_WORLD_SIZE=2: the local rank is not below the number of local ranks");
  EXPECT_EQ(error({{"RANK", "99999999999999999999"}, {"WORLD_SIZE", "2"}}).rfind("RANK=", 0), 0U);
}

// Hostile values: signs, spaces, 2^63, hex and empty values are no rank (strtol took " 3" and "+0");
// a rank set without its size (or the other way round) and a PMIX_RANK that disagrees are refused with
// one line naming the variables; a Slurm batch script (SLURM_PROCID alone) stays no launch.
TEST(LaunchEnv, HostileValuesAndHalfLaunchesAreNamed) {
  auto error = [](const std::map<std::string, std::string>& vars) {
    try {
      (void)launch_from_env(env_of(vars));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const char* v : {" 0", "0 ", "+0", "-0", "", "\t1", "9223372036854775808", "0x1", "1e3", "1.0", "007a"}) {
    EXPECT_EQ(error({{"OMPI_COMM_WORLD_RANK", v}, {"OMPI_COMM_WORLD_SIZE", "2"}}),
              std::string("OMPI_COMM_WORLD_RANK=") + v + ": not a whole number in [0, 16777216]")
        << "'" << v << "'";
  }
  EXPECT_EQ(error({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "-2"}}),
            "OMPI_COMM_WORLD_SIZE=-2: not a whole number in [1, 16777216]");
  EXPECT_EQ(error({{"OMPI_COMM_WORLD_SIZE", "2"}}),
            "OMPI_COMM_WORLD_SIZE=2 is set but OMPI_COMM_WORLD_RANK is not: mpirun sets both (unset "
            "OMPI_COMM_WORLD_SIZE, or launch with mpirun)");
  EXPECT_EQ(error({{"RANK", "1"}}),
            "RANK=1 is set but WORLD_SIZE is not: torchrun sets both (unset RANK, or launch "
            "with torchrun)");
  EXPECT_EQ(error({{"PMI_SIZE", "4"}}).rfind("PMI_SIZE=4 is set but PMI_RANK is not", 0), 0U);
  EXPECT_EQ(error({{"SLURM_STEP_NUM_TASKS", "4"}}).rfind("SLURM_STEP_NUM_TASKS=4 is set but SLURM_PROCID", 0), 0U);
  EXPECT_EQ(error({{"SLURM_PROCID", "3"}}), "no error");  // a batch script
  EXPECT_EQ(error({{"PMIX_RANK", "-1"}}), "PMIX_RANK=-1: not a whole number in [0, 16777216]");
  EXPECT_EQ(error({{"PMIX_RANK", "abc"}}), "PMIX_RANK=abc: not a whole number in [0, 16777216]");
  EXPECT_EQ(error({{"PMIX_RANK", "2"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}),
            "PMIX_RANK=2 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=4: the launcher's variables disagree on the rank");
  EXPECT_EQ(error({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "2"}}),
            "OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=2: the rank is not below the number of ranks");
  EXPECT_EQ(error({{"OMPI_COMM_WORLD_RANK", "0"},
                   {"OMPI_COMM_WORLD_SIZE", "2"},
                   {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                   {"OMPI_COMM_WORLD_LOCAL_SIZE", "0"}}),
            "OMPI_COMM_WORLD_LOCAL_SIZE=0: not a whole number in [1, 16777216]");
}

// PMIX_RANK alone: a PMIx launcher's rank, which must be one of MPI's.
TEST(LaunchEnv, PmixRankAloneMustBeAnMpiRank) {
  const auto l = launch_from_env(env_of({{"PMIX_RANK", "3"}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->rank, 3);
  EXPECT_EQ(l->size, -1);
  EXPECT_EQ(launch_world_mismatch(*l, 4), "");
  EXPECT_EQ(launch_world_mismatch(*l, 1).rfind("launched by a PMIx launcher as rank 3 (PMIX_RANK=3), but MPI sees a "
                                               "world of 1",
                                               0),
            0U);
}

// Each launcher of the table is recognised from its own variables, by launcher_in_env, started_by_launcher
// (the mpirun re-launch asks it) and launch_from_env (main asks it) alike; a variable of no launcher is none.
TEST(LaunchEnv, EveryLauncherIsRecognisedAlikeByEveryCaller) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"mpirun",
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"}},
      {"srun", {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID"}},
      {"pmi", {"PMI_RANK", "PMI_SIZE"}},
      {"torchrun", {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}},
  };
  std::size_t seen = 0;
  for (const auto& v : kLaunchers) {
    ASSERT_EQ(expected.count(v.launcher), 1U) << v.launcher;
    const auto& names = expected.at(v.launcher);
    std::map<std::string, std::string> vars = {{names[0], "1"}, {names[1], "2"}};
    if (names.size() > 2) vars[names[2]] = "0";
    if (names.size() > 3) vars[names[3]] = "1";
    const auto env = env_of(vars);
    ASSERT_EQ(launcher_in_env(env), &v) << v.launcher;
    EXPECT_TRUE(started_by_launcher(env)) << v.launcher;
    const auto launch = launch_from_env(env);
    ASSERT_TRUE(launch) << v.launcher;
    EXPECT_EQ(launch->launcher, v.launcher);
    EXPECT_EQ(launch->rank, 1);
    EXPECT_EQ(launch->size, 2);
    EXPECT_EQ(launch->local_rank, names.size() > 2 ? 0 : -1) << v.launcher;
    EXPECT_EQ(launch->local_size, names.size() > 3 ? 1 : -1) << v.launcher;
    ++seen;
  }
  EXPECT_EQ(seen, expected.size());
  const auto pmix = env_of({{"PMIX_RANK", "0"}});
  EXPECT_EQ(launcher_in_env(pmix), nullptr);
  EXPECT_TRUE(started_by_launcher(pmix));
  EXPECT_TRUE(launch_from_env(pmix));
  for (const auto& none : {env_of({}), env_of({{"SLURM_PROCID", "0"}, {"SLURM_LOCALID", "0"}, {"SLURM_NTASKS", "4"}}),
                           env_of({{"LOCAL_RANK", "0"}, {"MASTER_ADDR", "node1"}})}) {
    EXPECT_EQ(launcher_in_env(none), nullptr);
    EXPECT_FALSE(started_by_launcher(none));
    EXPECT_FALSE(launch_from_env(none));
  }
}

TEST(LaunchEnv, AWorldOfOneUnderALauncherOfFourIsTold) {
  const LaunchEnv srun{"srun", "SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=4", 1, 4, 1, -1};
  EXPECT_EQ(launch_world_mismatch(srun, 4), "");
  EXPECT_EQ(launch_world_mismatch(srun, 1),
            "launched by srun as rank 1 of 4 (SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=4), but MPI sees a world of 1: "
            "this MPI does not speak srun's PMI (try srun --mpi=pmix, or an MPI built with Slurm/PMIx support)");
  const LaunchEnv torch{"torchrun", "RANK=0 WORLD_SIZE=2", 0, 2, -1, -1};
  EXPECT_NE(launch_world_mismatch(torch, 1).find("torchrun starts no MPI job"), std::string::npos);
  EXPECT_NE(launch_world_mismatch(srun, 2).find("the launcher and MPI disagree"), std::string::npos);
}

}  // namespace
}  // namespace pipebench
