// SPDX-License-Identifier: Apache-2.0
// A JSON text as a tree, built from nlohmann-json's SAX events in one pass whose time is linear in the
// text. nlohmann-json's parser callback cannot serve hostile input: after every object it closes, it
// scans that object's parent for a discarded value, so an array of N objects costs N^2 (a 27 MB file with
// 200k objects in one array took 31 s). Here every object and array joins its parent once it is complete,
// which also gives a text cut short as the tree of its complete values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pipebench {

// What a key given twice in one object does: RFC 8259 (section 4) leaves its meaning open.
enum class DuplicateKeys {
  kLastWins,  // nlohmann-json's own rule
  kStop,      // parsing stops there and JsonTree::duplicate_key names it
};

struct JsonTree {
  // The document. Where the text is not whole: the values completed before the error, the open arrays
  // with their complete elements and the outermost object with its complete members (an open object
  // inside it is left out: its members are not all there); discarded when not even that.
  nlohmann::json value = nlohmann::json::value_t::discarded;
  bool whole = false;         // the text is one complete JSON value
  std::string error;          // nlohmann-json's message where it is not ("" when whole)
  std::string duplicate_key;  // DuplicateKeys::kStop: the key given twice, as JSON ("\"k\""); "" when none
};

[[nodiscard]] JsonTree parse_json_tree(std::string_view text, DuplicateKeys duplicates);

}  // namespace pipebench
