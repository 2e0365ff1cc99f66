// SPDX-License-Identifier: Apache-2.0
// `pipebench plan [--json FILE] -- <Megatron-LM arguments>`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/command.h"

namespace pipebench {

struct PlanOptions {
  std::string json_path;
  std::vector<std::string> megatron_args;
};

// Needs no MPI. Returns the exit status.
[[nodiscard]] int run_plan_command(const PlanOptions& options);

[[nodiscard]] std::unique_ptr<Subcommand> make_plan_command();

}  // namespace pipebench
