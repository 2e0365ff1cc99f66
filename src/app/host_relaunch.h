// SPDX-License-Identifier: Apache-2.0
// The host-rank fallback of run, pairs and replay: a plain `pipebench CMD ...` that will use no GPU
// (--backend mpi, or auto where none is visible) starts itself again under `mpirun -np N` on the MPI
// backend, saying so on its first line, as nccl-tests users would start it by hand.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "launch/mpirun_relaunch.h"

namespace pipebench {

// Before MPI is initialised. Replaces this process by `mpirun -np ranks <this program> args...` (with
// --oversubscribe where ranks exceed the cores: launch/mpirun_relaunch.h) when it was not started by a
// launcher, is built with MPI, ranks > 1, and no GPU will be used. Returns where no relaunch is needed,
// or where no mpirun is on PATH (saying so: the command then runs as one process). `stop`: how a SIGINT
// or SIGTERM the user sends reaches the ranks (launch/mpirun_relaunch.h); the command exits 130 or 143.
// `stopped_line`: run_under_mpirun's.
void relaunch_on_host_ranks(BackendKind backend, int ranks, const std::vector<std::string>& args,
                            StopForwarding stop = StopForwarding::kTerminate,
                            const std::function<std::string(int sig)>& stopped_line = {});

}  // namespace pipebench
