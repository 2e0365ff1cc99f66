// SPDX-License-Identifier: Apache-2.0
// FILE:OP arguments.
#include "io/nccl_tests_argument.h"

#include <sys/stat.h>

#include "core/error.h"
#include "io/nccl_tests_log.h"

namespace pipebench {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

LogArgument split_log_argument(const std::string& flag, const std::string& arg) {
  const std::size_t colon = arg.rfind(':');
  if (colon == std::string::npos || colon == 0 || exists(arg)) return {arg, ""};
  LogArgument out{arg.substr(0, colon), arg.substr(colon + 1)};
  if (!exists(out.path)) return {arg, ""};
  if (out.op.empty() || nccl_tests_op(out.op) != out.op) {
    throw UsageError(flag + " " + arg + ": '" + out.op + "' after the ':' is not an nccl-tests op (" +
                     nccl_tests_op_list() + "); FILE:OP gives the op of a log that does not name it");
  }
  return out;
}

std::string give_op_text(const std::string& path) { return "give it as " + path + ":OP, e.g. " + path + ":all_reduce"; }

}  // namespace pipebench
