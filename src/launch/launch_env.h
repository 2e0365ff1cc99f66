// SPDX-License-Identifier: Apache-2.0
// Which launcher started this process, and as which rank of how many, from the variables each launcher
// sets: Open MPI's mpirun (OMPI_COMM_WORLD_*), Slurm's srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS,
// SLURM_LOCALID; `srun --mpi=pmix` adds PMIX_RANK), a PMI launcher (PMI_RANK, PMI_SIZE) and torchrun
// (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE). MPI still forms the world; this says what the launcher
// meant, so that a process started as one of N but seeing a world of 1 (an MPI that does not speak the
// launcher's PMI, NVIDIA/nccl-tests#213) stops with a clear line instead of measuring N separate worlds.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace pipebench {

struct LaunchEnv {
  std::string launcher;                  // "mpirun", "srun", "pmi", "torchrun", "a PMIx launcher"
  std::string variables;                 // the variables read, for messages: "SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=4"
  int rank = -1, size = -1;              // size -1: the launcher does not say (PMIX_RANK alone)
  int local_rank = -1, local_size = -1;  // -1 where the launcher does not say
};

using EnvLookup = std::function<const char*(const char*)>;

// The variables one launcher sets; nullptr where it sets none. rank_alone_is_no_launch: a Slurm batch
// script has SLURM_PROCID (and SLURM_LOCALID) of the allocation without a step, and is one process.
struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
  bool rank_alone_is_no_launch;
};

// Every launcher pipebench knows, in the order they are tried. srun sets SLURM_STEP_NUM_TASKS for its step
// (SLURM_NTASKS is the allocation's); Slurm has no local-size variable with a plain number
// (SLURM_TASKS_PER_NODE reads "2(x3)").
inline constexpr LauncherVariables kLaunchers[] = {
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
     "OMPI_COMM_WORLD_LOCAL_SIZE", false},
    {"srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", nullptr, true},
    {"pmi", "PMI_RANK", "PMI_SIZE", nullptr, nullptr, false},
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", false},
};

// Set beside mpirun's (Open MPI 4 and later) and srun --mpi=pmix's variables, and alone by a PMIx launcher.
inline constexpr const char* kPmixRankVariable = "PMIX_RANK";

// The first of kLaunchers whose rank or size variable is set (a rank alone does not count where
// rank_alone_is_no_launch); nullptr when none is.
[[nodiscard]] const LauncherVariables* launcher_in_env(const EnvLookup& getenv);

// True when a launcher started this process (launcher_in_env, or PMIX_RANK): such a process is not started
// again under mpirun, and its rank and size come from launch_from_env.
[[nodiscard]] bool started_by_launcher(const EnvLookup& getenv);
[[nodiscard]] bool started_by_launcher();  // of this process

// The launch described by the environment; nullopt when no launcher variable is set (a plain process, or
// a Slurm batch script outside srun). Open MPI first, then Slurm, PMI, torchrun; PMIX_RANK alone is a PMIx
// launcher (rank only, size -1). Throws UsageError, one line naming the variables and values, when one is
// not a whole number (decimal digits only: no sign, no spaces) in range, the rank is not below the size,
// a launcher's rank is set without its size or the other way round (SLURM_PROCID alone excepted: a batch
// script), or PMIX_RANK disagrees with the launcher's rank.
[[nodiscard]] std::optional<LaunchEnv> launch_from_env(const EnvLookup& getenv);
[[nodiscard]] std::optional<LaunchEnv> launch_from_env();  // of this process

// "" when the world agrees with the launch; else one line: "launched by srun as rank 1 of 4 (SLURM_PROCID=1
// SLURM_STEP_NUM_TASKS=4), but MPI sees a world of 1: ...".
[[nodiscard]] std::string launch_world_mismatch(const LaunchEnv& launch, int world_size);

// This machine's host name (gethostname), "unknown-host" where it has none: how every World names its host.
[[nodiscard]] std::string this_host_name();

}  // namespace pipebench
