// SPDX-License-Identifier: Apache-2.0
// `pipebench plan [--json FILE] -- <Megatron-LM arguments>`.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/command.h"
#include "megatron/plan.h"

namespace pipebench {

struct PlanOptions {
  std::string json_path;
  std::vector<std::string> megatron_args;
};

// Needs no MPI. Returns the exit status.
[[nodiscard]] int run_plan_command(const PlanOptions& options);

void print_plan(std::ostream& out, const Plan& plan);

[[nodiscard]] std::unique_ptr<Subcommand> make_plan_command();

}  // namespace pipebench
