// SPDX-License-Identifier: Apache-2.0
// Chooses and builds the backend: the one place that knows which transports this build has.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "launch/world.h"

namespace pipebench {

[[nodiscard]] BackendKind parse_backend_kind(std::string_view flag, std::string_view text);
[[nodiscard]] bool built_with_nccl();
[[nodiscard]] bool built_with_mpi();

// GPUs visible to this process (0 without NCCL support), and why none when 0.
[[nodiscard]] int visible_gpus(std::string* why);

// Resolves kAuto collectively: nccl when every process sees a GPU, else mpi. Falling back to mpi while
// CUDA_VISIBLE_DEVICES is set and not empty, rank 0 says so in one line on stderr. Under a torchrun-style
// launch without MPI (World::tcp_rendezvous) auto is nccl and mpi is a UsageError saying why.
[[nodiscard]] BackendKind resolve_backend(BackendKind kind, const World& world);

// The part of resolve_backend that needs no World: the mpi backend under a torchrun-style launch is a
// UsageError (Subcommand::check_launch, before the rendezvous).
void require_backend_for_launch(BackendKind kind, bool tcp_rendezvous);

// Collective. Throws UsageError for an impossible choice (no GPU for nccl, -g or --gpus with mpi, ...).
// gpu_list: --gpus (launch/gpu_assignment.h parse_gpu_list), the devices the node's processes share out;
// empty: every visible device.
[[nodiscard]] std::unique_ptr<Backend> make_backend(BackendKind kind, const World& world, int gpus_per_process,
                                                    const std::vector<std::string>& gpu_list = {});

}  // namespace pipebench
