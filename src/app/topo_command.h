// SPDX-License-Identifier: Apache-2.0
// `pipebench topo`.
#pragma once

#include "cli/cli.h"

namespace pipebench {

// Needs no MPI: runs before (and without) a World. Returns the exit status.
[[nodiscard]] int run_topo_command(const TopoOptions& options);

}  // namespace pipebench
