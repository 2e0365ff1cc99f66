// SPDX-License-Identifier: Apache-2.0
// A rules file's YAML as JSON, read from yaml-cpp's event stream under limits, so that a hostile file
// cannot exhaust the stack or the memory: an alias that refers to its own node (a cycle), aliases that
// expand to more than kMaxRulesNodes nodes ("billion laughs"), nesting deeper than kMaxRulesDepth, more
// than kMaxRulesAliases aliases, a key given twice in one mapping, and bytes that are not UTF-8 are each
// refused with the file and the line. Scalars are typed as YAML 1.2's core schema would (bool, number,
// else string; a quoted scalar stays a string).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace pipebench {

inline constexpr std::size_t kMaxRulesNodes = 100000;  // values after aliases are expanded
inline constexpr std::size_t kMaxRulesDepth = 32;      // nested mappings and lists
inline constexpr std::size_t kMaxRulesAliases = 1000;  // uses of `*name`

// Throws UsageError "--rules FILE: line N: ..." (built with yaml-cpp; without it, UsageError saying so).
[[nodiscard]] nlohmann::json rules_yaml_to_json(const std::string& text, const std::string& file);

}  // namespace pipebench
