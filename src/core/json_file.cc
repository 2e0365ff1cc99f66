// SPDX-License-Identifier: Apache-2.0
// JSON input files.
#include "core/json_file.h"

#include <set>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"

namespace pipebench {
namespace {

// The parser's callback keeps, per open object, the keys seen so far.
nlohmann::json parse_unique_keys(const std::string& flag, const std::string& path, const std::string& text,
                                 bool allow_exceptions) {
  std::vector<std::set<std::string>> open;
  const nlohmann::json::parser_callback_t unique = [&](int, nlohmann::json::parse_event_t event,
                                                       nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) open.emplace_back();
    if (event == Event::object_end && !open.empty()) open.pop_back();
    if (event == Event::key && !open.empty() && !open.back().insert(parsed.get<std::string>()).second) {
      throw UsageError(flag + " " + path + ": key " + parsed.dump() + " given twice in one object");
    }
    return true;
  };
  return nlohmann::json::parse(text, unique, allow_exceptions);
}

}  // namespace

nlohmann::json read_json_file(const std::string& flag, const std::string& path) {
  const std::string text = read_input_file(flag, path);  // a regular file only: a FIFO would block
  try {
    return parse_unique_keys(flag, path, text, true);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(flag + " " + path + ": not JSON (" + json_error_text(e) + ")");
  }
}

std::string json_error_text(const std::exception& e) {
  const std::string what = e.what();
  const std::string tag = "[json.exception.";
  const std::size_t end = what.find("] ");
  return what.rfind(tag, 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

nlohmann::json parse_json_text(const std::string& flag, const std::string& path, const std::string& text) {
  return parse_unique_keys(flag, path, text, false);
}

std::string json_file_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace pipebench
