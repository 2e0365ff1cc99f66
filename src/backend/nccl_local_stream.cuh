// SPDX-License-Identifier: Apache-2.0
// The CUDA stream on which a NcclBackend issues a local rank's calls. The NCCL replay runtime times and
// orders those calls against its compute stream with events, so it needs the stream itself; the
// Backend interface stays free of CUDA types (every other user waits through synchronize() or a
// PendingComm). CUDA-only header: included from .cu files alone.
#pragma once

#include <cuda_runtime.h>

#include "backend/backend.h"

namespace pipebench {

struct NcclLocalStream {
  int device = 0;
  cudaStream_t stream = nullptr;
};

// REQUIRES: backend was made by make_nccl_backend (or split from one), 0 <= local < nlocal(). Throws Error
// naming the backend otherwise.
[[nodiscard]] NcclLocalStream nccl_local_stream(Backend& backend, int local);

}  // namespace pipebench
