// SPDX-License-Identifier: Apache-2.0
// Messages made safe for a terminal (see terminal_text.h).
#include "core/terminal_text.h"

#include <cstdio>

#include "core/utf8.h"

namespace pipebench {

std::string one_line(std::string_view text) {
  std::string out;
  for (const char ch : utf8_replaced(text)) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x20 && byte != 0x7f) {
      out += ch;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    out += hex;
  }
  return out;
}

}  // namespace pipebench
