// SPDX-License-Identifier: Apache-2.0
// Messages made safe for a terminal (see terminal_text.h).
#include "core/terminal_text.h"

#include <cstdio>

#include "core/utf8.h"

namespace pipebench {

namespace {

std::string shown(std::string_view text, bool keep_line_structure) {
  std::string out;
  for (const char ch : utf8_replaced(text)) {
    const auto byte = static_cast<unsigned char>(ch);
    const bool kept = keep_line_structure && (ch == '\t' || ch == '\n' || ch == '\r');
    if ((byte >= 0x20 && byte != 0x7f) || kept) {
      out += ch;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    out += hex;
  }
  return out;
}

}  // namespace

std::string one_line(std::string_view text) { return shown(text, false); }

std::string visible_controls(std::string_view text) { return shown(text, true); }

}  // namespace pipebench
