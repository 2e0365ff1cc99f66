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

[[nodiscard]] std::unique_ptr<Subcommand> make_plan_command();

}  // namespace pipebench
