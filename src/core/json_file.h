// SPDX-License-Identifier: Apache-2.0
// Reads a JSON file the user named with a flag: one UsageError naming the flag and file when it cannot
// be read or is not JSON (exit status 2), so every command treats input files alike. A key given twice in
// one object is refused too: RFC 8259 (section 4) leaves its meaning open and nlohmann-json keeps the last,
// so `"time_us": 1.29, "time_us": -99` would silently read as -99.
#pragma once

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

namespace pipebench {

// Throws UsageError "FLAG PATH: cannot be read (...)", "FLAG PATH: a FIFO, not a regular file ...",
// "FLAG PATH: not JSON (...)" or "FLAG PATH: key "K" given twice in one object".
[[nodiscard]] nlohmann::json read_json_file(const std::string& flag, const std::string& path);

// nlohmann-json's message without its tag ("[json.exception.parse_error.101] "): the tag names the
// library's exception class, which tells the user nothing about the file; the rest says where and what.
[[nodiscard]] std::string json_error_text(const std::exception& e);
[[nodiscard]] std::string json_error_text(const std::string& what);

// The text parsed: a discarded value when it is not JSON; UsageError as above for a duplicate key.
[[nodiscard]] nlohmann::json parse_json_text(const std::string& flag, const std::string& path, const std::string& text);

// A JSON output file's text, indented by `indent` and ended by a newline: bytes from inputs that are not
// UTF-8 (kernel names, NVTX text) become U+FFFD rather than ending the command in nlohmann-json's
// type_error 316.
[[nodiscard]] std::string json_file_text(const nlohmann::json& j, int indent);

}  // namespace pipebench
