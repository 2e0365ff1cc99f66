// SPDX-License-Identifier: Apache-2.0
// The replay runtimes this build lacks: a clear error instead of a missing symbol.
#include "backend/replay_runtime.h"
#include "core/error.h"

namespace pipebench {

#if !PB_HAVE_MPI
std::unique_ptr<ReplayRuntime> make_mpi_replay_runtime(const World&, Backend&) {
  throw UsageError("replay: this pipebench was built without MPI");
}
#endif

#if !PB_HAVE_NCCL
std::unique_ptr<ReplayRuntime> make_nccl_replay_runtime(const World&, Backend&, const ReplayComputeOptions&) {
  throw UsageError("replay --backend nccl: this pipebench was built without CUDA/NCCL");
}
#endif

}  // namespace pipebench
