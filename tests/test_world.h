// SPDX-License-Identifier: Apache-2.0
// The World of the MPI test binary, created once by tests/mpi_main.cc.
#pragma once

#include "launch/world.h"

namespace pipebench::testing {

const World& world();

}  // namespace pipebench::testing
