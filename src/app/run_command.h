// SPDX-License-Identifier: Apache-2.0
// `pipebench run` (and `make run`): the qualification job with defaults. On GPUs: all_reduce,
// all_gather and sendrecv from 8 B to 1 GiB (factor 4) on all local GPUs; without a GPU, the same on
// the MPI backend with host ranks started through mpirun. Results go to a run folder.
#pragma once

#include <string>
#include <vector>

#include "cli/cli.h"
#include "launch/world.h"

namespace pipebench {

// Before MPI is initialised: when no GPU is visible and this process was not started by mpirun,
// replace it with `mpirun -np <host_ranks> <this program> <args>` (saying so on the first line).
// Returns only when no re-launch is needed or possible.
void relaunch_under_mpirun_if_needed(const RunOptions& options, const std::vector<std::string>& args);

[[nodiscard]] int run_run_command(const RunOptions& options, const World& world);

}  // namespace pipebench
