// SPDX-License-Identifier: Apache-2.0
// Reads a JSON file the user named with a flag: one UsageError naming the flag and file when it cannot
// be read or is not JSON (exit status 2), so every command treats input files alike.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipebench {

// Throws UsageError "FLAG PATH: cannot be read (...)", "FLAG PATH: a FIFO, not a regular file ..." or
// "FLAG PATH: not JSON (...)".
[[nodiscard]] nlohmann::json read_json_file(const std::string& flag, const std::string& path);

}  // namespace pipebench
