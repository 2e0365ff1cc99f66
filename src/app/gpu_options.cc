// SPDX-License-Identifier: Apache-2.0
#include "app/gpu_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "backend/backend_factory.h"
#include "cli/number_checks.h"
#include "core/error.h"
#include "launch/gpu_assignment.h"

namespace pipebench {

std::vector<std::string> parse_gpus_option(const std::string& text, BackendKind backend) {
  if (text.empty()) return {};
  std::vector<std::string> list = parse_gpu_list(text);
  if (backend == BackendKind::kMpi) throw UsageError("--gpus: the mpi backend runs on host memory and uses no GPU");
  return list;
}

BackendKind backend_for_gpus(BackendKind requested, BackendKind resolved, const std::vector<std::string>& gpu_list) {
  if (!gpu_list.empty() && requested == BackendKind::kAuto && resolved == BackendKind::kMpi) {
    throw UsageError("--gpus: no GPU is visible to this process (--backend auto would run on host memory)");
  }
  return resolved;
}

int default_gpus_per_process(int requested, const std::vector<std::string>& gpu_list, BackendKind kind,
                             const World& world) {
  if (requested > 0) return requested;
  if (kind != BackendKind::kNccl || world.size() != 1) return 1;
  return gpu_list.empty() ? std::max(1, visible_gpus(nullptr)) : static_cast<int>(gpu_list.size());
}

void add_timeout_option(CLI::App& sub, double& timeout_s) {
  sub.add_option("-T,--timeout", timeout_s,
                 "seconds a point may take before the job is aborted (default: from the point's size, see pipebench "
                 "help bench; 0 = none)")
      ->check(checks::non_negative(checks::kMaxTimeoutSeconds));
}

}  // namespace pipebench
