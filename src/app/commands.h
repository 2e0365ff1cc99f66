// SPDX-License-Identifier: Apache-2.0
// The command table: every `pipebench X`, in the order of the top-level help. Adding a subcommand is its
// command file, its test, its README section and one line here.
#pragma once

#include <memory>
#include <vector>

#include "core/command.h"

namespace pipebench {

[[nodiscard]] std::vector<std::unique_ptr<Subcommand>> make_command_table();

}  // namespace pipebench
