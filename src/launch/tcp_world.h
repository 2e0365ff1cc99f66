// SPDX-License-Identifier: Apache-2.0
// The World of a torchrun-style launch without MPI: RANK and WORLD_SIZE from the launcher, LOCAL_RANK and
// LOCAL_WORLD_SIZE where set (else counted from the ranks' host names), and every cross-process operation
// an all-gather over the TCP rendezvous (launch/tcp_rendezvous.h). Enough for the NCCL backend, whose
// unique id is the one thing it broadcasts; the MPI backend needs MPI.
#pragma once

#include <memory>

#include "launch/tcp_rendezvous.h"
#include "launch/world.h"

namespace pipebench {

// The World of this process when its launch asks for the TCP rendezvous (torchrun's RANK and WORLD_SIZE,
// MASTER_ADDR or MASTER_PORT set, and no Open MPI, srun, PMI or PMIx variables); null otherwise. Throws
// UsageError for a bad MASTER_ADDR, MASTER_PORT or PIPEBENCH_RENDEZVOUS_TIMEOUT_S, Error when the
// rendezvous fails.
[[nodiscard]] std::unique_ptr<World> tcp_world_from_env(const RendezvousEnv& getenv);

// Whether tcp_world_from_env makes this launch's World (false too where a launcher variable is bad:
// launch_from_env names it). Known before any rank waits for another, so that what needs no peer is told
// at once.
[[nodiscard]] bool tcp_rendezvous_launch(const RendezvousEnv& getenv);

}  // namespace pipebench
