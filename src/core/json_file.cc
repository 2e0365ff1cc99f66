// SPDX-License-Identifier: Apache-2.0
// JSON input files.
#include "core/json_file.h"

#include <fstream>

#include "core/error.h"

namespace pipebench {

nlohmann::json read_json_file(const std::string& flag, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(flag + " " + path + ": cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(flag + " " + path + ": not JSON (" + std::string(e.what()) + ")");
  }
}

}  // namespace pipebench
