// SPDX-License-Identifier: Apache-2.0
// The host-rank fallback under mpirun.
#include "app/host_relaunch.h"

#include <cstdio>

#include "backend/backend_factory.h"
#include "launch/launch_env.h"

namespace pipebench {

void relaunch_on_host_ranks(BackendKind backend, int ranks, const std::vector<std::string>& args, StopForwarding stop,
                            const std::function<std::string(int sig)>& stopped_line) {
  if (started_by_launcher() || !built_with_mpi() || ranks <= 1) return;
  if (backend == BackendKind::kNccl) return;
  std::string why;
  if (backend == BackendKind::kAuto && visible_gpus(&why) > 0) return;
  if (backend == BackendKind::kMpi) why = "--backend mpi";
  const std::string mpirun = find_in_path("mpirun");
  if (mpirun.empty()) {
    std::printf("# no GPU visible (%s) and no mpirun on PATH: running on the MPI backend with 1 host rank\n",
                why.c_str());
    return;
  }
  std::printf("# no GPU visible (%s): running on the MPI backend with %d host ranks (mpirun -np %d)\n", why.c_str(),
              ranks, ranks);
  std::fflush(stdout);
  run_under_mpirun(mpirun, ranks, args, stop, stopped_line);
}

}  // namespace pipebench
