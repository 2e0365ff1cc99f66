// SPDX-License-Identifier: Apache-2.0
// FILE:OP, an nccl-tests log named together with its op, where a command takes files as positionals or a
// flag's value (report's INPUT, predict --table) and has no room for import's --op: a log from before
// nccl-tests 2.17.4 never names its binary, so a file named without the op ("seed.log") leaves it unknown.
#pragma once

#include <string>

namespace pipebench {

struct LogArgument {
  std::string path;
  std::string op;  // "" when none was given
};

// `arg` whole when it names an existing file or folder, or has no ':'; else split at its last ':'
// ("seed.log:all_reduce" -> {"seed.log", "all_reduce"}). Throws UsageError "FLAG ARG: ..." when the part
// before ':' exists and the part after it is no nccl-tests op (listing them); a path that exists neither
// whole nor before its ':' is returned whole, for the reader's "does not exist".
[[nodiscard]] LogArgument split_log_argument(const std::string& flag, const std::string& arg);

// What the reader says of a log whose op is unknown, in place of import's "give --op": how to give it here.
[[nodiscard]] std::string give_op_text(const std::string& path);

}  // namespace pipebench
