// SPDX-License-Identifier: Apache-2.0
// JSON input files.
#include "core/json_file.h"

#include <utility>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_tree.h"

namespace pipebench {
namespace {

// The whole document, or UsageError for a key given twice (json_file.h).
JsonTree parse_unique_keys(const std::string& flag, const std::string& path, std::string_view text) {
  JsonTree tree = parse_json_tree(text, DuplicateKeys::kStop);
  if (!tree.duplicate_key.empty()) {
    throw UsageError(flag + " " + path + ": key " + tree.duplicate_key + " given twice in one object");
  }
  return tree;
}

}  // namespace

nlohmann::json read_json_file(const std::string& flag, const std::string& path) {
  const std::string text = read_input_file(flag, path);  // a regular file only: a FIFO would block
  JsonTree tree = parse_unique_keys(flag, path, text);
  if (!tree.whole) throw UsageError(flag + " " + path + ": not JSON (" + json_error_text(tree.error) + ")");
  return std::move(tree.value);
}

std::string json_error_text(const std::exception& e) { return json_error_text(std::string(e.what())); }

std::string json_error_text(const std::string& what) {
  const std::string tag = "[json.exception.";
  const std::size_t end = what.find("] ");
  return what.rfind(tag, 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

nlohmann::json parse_json_text(const std::string& flag, const std::string& path, const std::string& text) {
  JsonTree tree = parse_unique_keys(flag, path, text);
  return tree.whole ? std::move(tree.value) : nlohmann::json(nlohmann::json::value_t::discarded);
}

std::string json_file_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace pipebench
