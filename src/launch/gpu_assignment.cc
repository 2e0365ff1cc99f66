// SPDX-License-Identifier: Apache-2.0
// GPU assignment by node-local rank.
#include "launch/gpu_assignment.h"

#include "core/error.h"

namespace pipebench {

int pick_device(int local, int gpus, int visible, int local_rank, int local_size, const std::string& host) {
  if (gpus > visible) {
    throw LocalUsageError("-g " + std::to_string(gpus) + ": only " + std::to_string(visible) + " GPU" +
                          (visible == 1 ? " is" : "s are") + " visible on host " + host);
  }
  if (visible >= local_size * gpus) return local_rank * gpus + local;
  if (visible == gpus) return local;  // each process sees only its own GPUs
  throw LocalUsageError("-g " + std::to_string(gpus) + ": " + std::to_string(local_size) + " processes on host " +
                        host + " need " + std::to_string(local_size * gpus) + " GPUs, but " + std::to_string(visible) +
                        " are visible to each (give every process all GPUs, or exactly -g of its own)");
}

}  // namespace pipebench
