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
  // Non-empty: an object of an event or a top-level member has a key twice ("key \"ts\" given twice in one
  // object of event 12"), and the stream stopped there. JSON leaves such an object's meaning open (RFC 8259
  // section 4); pipebench's inputs refuse it rather than keep one of the values.
  std::string duplicate_key;
};

[[nodiscard]] JsonStreamResult stream_json_events(std::istream& in,
                                                  const std::function<void(const nlohmann::json&)>& on_event);

}  // namespace pipebench
