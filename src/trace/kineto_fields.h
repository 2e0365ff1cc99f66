// SPDX-License-Identifier: Apache-2.0
// The fields of a Kineto event as every reader of a Kineto trace takes them (trace-formats.md C2): times in
// microseconds with nanosecond decimals, ids as numbers or as the strings older profilers wrote ("GPU 0",
// "stream 7"). The trace reader and the job's merged Chrome trace read the same events through these, so
// that the merged trace shows every kernel the report counted.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace pipebench {

// A ts or dur field: absent, present but not a usable time (negative, or out of range), or usable.
struct TimeField {
  bool present = false, usable = false;
  std::int64_t ns = 0;
};

[[nodiscard]] TimeField kineto_time(const nlohmann::json& event, const char* key);

// An integer id: a number (a float truncated), or the digits of a string such as "GPU 0"; none otherwise.
[[nodiscard]] std::optional<std::int64_t> kineto_int(const nlohmann::json& value);

// kineto_int of object[key]; none when the key is absent.
[[nodiscard]] std::optional<std::int64_t> kineto_int(const nlohmann::json& object, const char* key);

}  // namespace pipebench
