// SPDX-License-Identifier: Apache-2.0
// The part of the environment a report may record: NCCL_*, CUDA_*, OMPI_*, PMIX_* only, and never the
// value of a variable whose name holds KEY, TOKEN, SECRET or PASSWORD (nccl-tests' -J dumps everything).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pipebench {

inline constexpr const char* kRedacted = "<redacted>";

// From "NAME=value" entries (as in environ). Allowed names keep their value, sensitive ones are
// recorded as kRedacted, the rest are left out.
[[nodiscard]] std::map<std::string, std::string> allowed_environment(
    const std::vector<std::string>& entries);

// The same over this process's environ.
[[nodiscard]] std::map<std::string, std::string> allowed_environment();

}  // namespace pipebench
