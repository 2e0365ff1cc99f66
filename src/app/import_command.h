// SPDX-License-Identifier: Apache-2.0
// `pipebench import nccl-tests FILE... [--json OUT] [--op OP] [--nranks N]`: nccl-tests logs (text as
// printed, or -J JSON) as a pipebench.results/1 file that predict --table and report read.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/command.h"

namespace pipebench {

struct ImportOptions {
  std::string source;  // "nccl-tests", the only format for now
  std::vector<std::string> files;
  std::string json_path;
  std::string op;  // for logs that do not name their op
  int nranks = 0;  // for logs cut before their device lines
};

// Prints what each file gave on `out` and what was skipped on `err`; writes --json. Throws UsageError
// (exit 2) when no file gave a whole row. Returns the exit status.
[[nodiscard]] int run_import_command(const ImportOptions& options, std::ostream& out, std::ostream& err);

[[nodiscard]] std::unique_ptr<Subcommand> make_import_command();

}  // namespace pipebench
