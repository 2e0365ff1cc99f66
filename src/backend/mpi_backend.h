// SPDX-License-Identifier: Apache-2.0
// MpiBackend: host buffers, Open MPI non-blocking collectives and Isend/Irecv, steady-clock timing.
// It lets every test, and pipebench on a machine without GPUs, run the whole pipeline for real.
#pragma once

#include <memory>

#include "backend/backend.h"
#include "launch/world.h"

namespace pipebench {

// REQUIRES: world outlives the backend. Collective over every process of the world.
[[nodiscard]] std::unique_ptr<Backend> make_mpi_backend(const World& world);

}  // namespace pipebench
