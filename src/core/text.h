// SPDX-License-Identifier: Apache-2.0
// Prefix, suffix and ASCII case folding for the names the readers match (environment variables, log
// headers, operator and dtype names, file names): all ASCII, so no locale.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace pipebench {

[[nodiscard]] inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

[[nodiscard]] inline bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

[[nodiscard]] inline std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace pipebench
