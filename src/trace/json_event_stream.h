// SPDX-License-Identifier: Apache-2.0
// Streams a Chrome-trace JSON file through nlohmann-json's SAX interface: each element of the top-level
// "traceEvents" array (or of a top-level array, the bare form of the format) is built alone and handed
// over, so memory holds one event at a time, not the file; every other top-level member is kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>

namespace pipebench {

struct JsonStreamResult {
  enum class Top { kNone, kObject, kArray, kOther } top = Top::kNone;
  bool saw_events = false;                         // a traceEvents array (or a top-level array) was entered
  std::int64_t events = 0;                         // objects handed over
  std::int64_t non_objects = 0;                    // elements of the events array that were not objects
  nlohmann::json meta = nlohmann::json::object();  // other top-level members
  std::string error;                               // non-empty: the JSON is malformed or cut off here
  std::size_t error_offset = 0;                    // byte offset of the error
};

[[nodiscard]] JsonStreamResult stream_json_events(std::istream& in,
                                                  const std::function<void(const nlohmann::json&)>& on_event);

}  // namespace pipebench
