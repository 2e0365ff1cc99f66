// SPDX-License-Identifier: Apache-2.0
// `pipebench report INPUT... [--out DIR] [--rules FILE] [--baseline FILE] [--title TEXT] [--mad-k K]`:
// one qualification report (HTML, Markdown, JSON) from results, topology, prediction and replay files
// or run folders. Exit 0 when no rule fails, 3 when one does, 2 for bad input.
#pragma once

#include <memory>

#include "core/command.h"

namespace pipebench {

[[nodiscard]] std::unique_ptr<Subcommand> make_report_command();

}  // namespace pipebench
