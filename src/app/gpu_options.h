// SPDX-License-Identifier: Apache-2.0
// The options bench, pairs and run share: --gpus and the default of -g (the GPUs a node's processes share
// out, launch/gpu_assignment.h, and how many each process drives), and -T.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"
#include "launch/world.h"

namespace CLI {
class App;
}

namespace pipebench {

inline constexpr const char* kGpusOptionHelp =
    "the GPUs this node's processes share out: CUDA indices, UUIDs (GPU-...) or PCI bus ids, comma-separated";

// The entries of --gpus TEXT (none when TEXT is empty). One line and exit 2 for a malformed or repeated
// entry, or for GPUs named with --backend mpi, which runs on host memory.
[[nodiscard]] std::vector<std::string> parse_gpus_option(const std::string& text, BackendKind backend);

// The backend --backend resolved to (resolve_backend), where --gpus named GPUs: with auto and no GPU visible
// it is the mpi backend, and the GPUs named cannot be used (one line, exit 2, instead of a run without them).
[[nodiscard]] BackendKind backend_for_gpus(BackendKind requested, BackendKind resolved,
                                           const std::vector<std::string>& gpu_list);

// -g: as given; else, for one process on NCCL, every GPU of --gpus or every visible one; else 1 per rank.
[[nodiscard]] int default_gpus_per_process(int requested, const std::vector<std::string>& gpu_list, BackendKind kind,
                                           const World& world);

// -T,--timeout: seconds a point may take before the job is aborted.
void add_timeout_option(CLI::App& sub, double& timeout_s);

}  // namespace pipebench
