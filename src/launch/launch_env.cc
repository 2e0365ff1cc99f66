// SPDX-License-Identifier: Apache-2.0
// Launcher variables.
#include "launch/launch_env.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "core/error.h"

namespace pipebench {
namespace {

constexpr int kMaxRanks = 1 << 24;

struct Reader {
  const EnvLookup& getenv;
  std::string seen;

  // The variable as a whole number in [lo, kMaxRanks]: decimal digits only (no sign, no spaces, which
  // strtol would take); -1 when unset.
  int number(const char* name, int lo) {
    const char* v = getenv(name);
    if (v == nullptr) return -1;
    const std::string text = v;
    const bool digits = !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
    const long n = digits ? std::strtol(v, nullptr, 10) : -1;
    if (!digits || n < lo || n > kMaxRanks) {
      throw UsageError(std::string(name) + "=" + v + ": not a whole number in [" + std::to_string(lo) + ", " +
                       std::to_string(kMaxRanks) + "]");
    }
    seen += (seen.empty() ? "" : " ") + std::string(name) + "=" + v;
    return static_cast<int>(n);
  }
};

// A launcher sets its rank and size together: one without the other is no launch pipebench can trust
// (an MPI singleton would measure alone, silently).
LaunchEnv read(const EnvLookup& getenv, const LauncherVariables& v) {
  const char* r_value = getenv(v.rank);
  const char* s_value = getenv(v.size);
  if (r_value == nullptr || s_value == nullptr) {
    const char* set = r_value ? v.rank : v.size;
    const char* unset = r_value ? v.size : v.rank;
    throw UsageError(std::string(set) + "=" + (r_value ? r_value : s_value) + " is set but " + unset +
                     " is not: " + v.launcher + " sets both (unset " + set + ", or launch with " + v.launcher + ")");
  }
  Reader r{getenv, {}};
  LaunchEnv out;
  out.launcher = v.launcher;
  out.rank = r.number(v.rank, 0);
  out.size = r.number(v.size, 1);
  if (v.local_rank) out.local_rank = r.number(v.local_rank, 0);
  if (v.local_size) out.local_size = r.number(v.local_size, 1);
  out.variables = r.seen;
  if (out.rank >= out.size) throw UsageError(out.variables + ": the rank is not below the number of ranks");
  if (out.local_size > 0 && out.local_rank >= out.local_size) {
    throw UsageError(out.variables + ": the local rank is not below the number of local ranks");
  }
  return out;
}

// PMIX_RANK must be a rank, and the same rank as the launcher's own variables say.
std::optional<LaunchEnv> with_pmix_rank(const EnvLookup& getenv, std::optional<LaunchEnv> launch) {
  if (getenv(kPmixRankVariable) == nullptr) return launch;
  Reader r{getenv, {}};
  const int pmix_rank = r.number(kPmixRankVariable, 0);
  if (!launch) {
    LaunchEnv out;
    out.launcher = "a PMIx launcher";
    out.rank = pmix_rank;  // the size: MPI's (PMIx sets no plain size variable)
    out.variables = r.seen;
    return out;
  }
  if (launch->rank != pmix_rank) {
    throw UsageError(r.seen + " " + launch->variables + ": the launcher's variables disagree on the rank");
  }
  return launch;
}

const char* process_env(const char* name) { return std::getenv(name); }

}  // namespace

const LauncherVariables* launcher_in_env(const EnvLookup& getenv) {
  for (const auto& v : kLaunchers) {
    if (getenv(v.size) != nullptr || (getenv(v.rank) != nullptr && !v.rank_alone_is_no_launch)) return &v;
  }
  return nullptr;
}

bool started_by_launcher(const EnvLookup& getenv) {
  return launcher_in_env(getenv) != nullptr || getenv(kPmixRankVariable) != nullptr;
}

std::optional<LaunchEnv> launch_from_env(const EnvLookup& getenv) {
  const LauncherVariables* v = launcher_in_env(getenv);
  return with_pmix_rank(getenv, v ? std::optional<LaunchEnv>(read(getenv, *v)) : std::nullopt);
}

std::string this_host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::optional<LaunchEnv> launch_from_env() { return launch_from_env(process_env); }

bool started_by_launcher() { return started_by_launcher(process_env); }

std::string launch_world_mismatch(const LaunchEnv& launch, int world_size) {
  if (launch.size < 0) {  // the launcher gave a rank only: it must be one of MPI's
    if (launch.rank < world_size) return {};
    return "launched by " + launch.launcher + " as rank " + std::to_string(launch.rank) + " (" + launch.variables +
           "), but MPI sees a world of " + std::to_string(world_size) +
           ": this pipebench's MPI is not the launcher's (use the MPI pipebench was built with)";
  }
  if (launch.size == world_size) return {};
  std::string why;
  if (world_size == 1 && launch.launcher == "srun") {
    why = "this MPI does not speak srun's PMI (try srun --mpi=pmix, or an MPI built with Slurm/PMIx support)";
  } else if (world_size == 1 && launch.launcher == "torchrun") {
    why =
        "torchrun starts no MPI job; set MASTER_ADDR and MASTER_PORT (the ranks then meet over TCP, nccl "
        "backend), or launch pipebench with mpirun or srun --mpi=pmix";
  } else if (world_size == 1) {
    why = "this pipebench's MPI is not the launcher's (use the mpirun of the MPI pipebench was built with)";
  } else {
    why = "the launcher and MPI disagree on the job";
  }
  return "launched by " + launch.launcher + " as rank " + std::to_string(launch.rank) + " of " +
         std::to_string(launch.size) + " (" + launch.variables + "), but MPI sees a world of " +
         std::to_string(world_size) + ": " + why;
}

}  // namespace pipebench
