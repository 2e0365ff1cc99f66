// SPDX-License-Identifier: Apache-2.0
// JSON input files.
#include "core/json_file.h"

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {

nlohmann::json read_json_file(const std::string& flag, const std::string& path) {
  const std::string text = read_input_file(flag, path);  // a regular file only: a FIFO would block
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(flag + " " + path + ": not JSON (" + std::string(e.what()) + ")");
  }
}

}  // namespace pipebench
