// SPDX-License-Identifier: Apache-2.0
// Which CUDA device each GPU of a process drives, from its node-local rank.
#pragma once

#include <string>

namespace pipebench {

// The device index for local GPU `local` of a process driving `gpus_per_process` GPUs:
// local_rank * gpus + local when the node's processes all see every GPU (nccl-tests' rule), or
// `local` when each process sees exactly its own GPUs (CUDA_VISIBLE_DEVICES per rank, where
// nccl-tests fails with "invalid device ordinal"). Throws LocalUsageError with the numbers otherwise.
[[nodiscard]] int pick_device(int local, int gpus_per_process, int visible, int local_rank, int local_size,
                              const std::string& host);

}  // namespace pipebench
