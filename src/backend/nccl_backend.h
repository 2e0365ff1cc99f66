// SPDX-License-Identifier: Apache-2.0
// NcclBackend: device buffers, one non-blocking CUDA stream per local GPU, CUDA-event timing, optional
// CUDA-graph capture of a batch. Plain C++ header: the CUDA and NCCL types stay in the .cu file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "launch/world.h"

namespace pipebench {

// The number of CUDA devices this process can see; 0 with `why` set when there is none or no driver.
[[nodiscard]] int nccl_visible_gpus(std::string* why);

// Collective over every process of the world. REQUIRES: world outlives the backend.
// gpu_list: --gpus (launch/gpu_assignment.h), empty for every visible device.
[[nodiscard]] std::unique_ptr<Backend> make_nccl_backend(const World& world, int gpus_per_process,
                                                         const std::vector<std::string>& gpu_list = {});

}  // namespace pipebench
