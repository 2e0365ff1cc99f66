// SPDX-License-Identifier: Apache-2.0
// Messages made safe for a terminal (see terminal_text.h).
#include "core/terminal_text.h"

#include <cstdio>

#include "core/utf8.h"

namespace pipebench {

namespace {

// Unicode's format characters (general category Cf), C1 controls, and the line and paragraph separators.
bool invisible(char32_t c) {
  struct Range {
    char32_t first, last;
  };
  static constexpr Range kInvisible[] = {{0x80, 0x9f},       {0xad, 0xad},       {0x600, 0x605},     {0x61c, 0x61c},
                                         {0x6dd, 0x6dd},     {0x70f, 0x70f},     {0x890, 0x891},     {0x8e2, 0x8e2},
                                         {0x180e, 0x180e},   {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x2064},
                                         {0x2066, 0x206f},   {0xfeff, 0xfeff},   {0xfff9, 0xfffb},   {0x110bd, 0x110bd},
                                         {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a},
                                         {0xe0001, 0xe0001}, {0xe0020, 0xe007f}};
  for (const Range& r : kInvisible) {
    if (c >= r.first && c <= r.last) return true;
  }
  return false;
}

// The length of the UTF-8 sequence that starts with `lead` (well-formed text: utf8_replaced's).
std::size_t sequence_bytes(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4; }

char32_t decode(std::string_view s) {
  const auto b = [&s](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1f) << 6) | (b(1) & 0x3f);
    case 3:
      return ((b(0) & 0x0f) << 12) | ((b(1) & 0x3f) << 6) | (b(2) & 0x3f);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3f) << 12) | ((b(2) & 0x3f) << 6) | (b(3) & 0x3f);
  }
}

// At most max_chars characters of `text` (0: all), shown as the header says.
std::string shown(std::string_view text, bool keep_line_structure, std::size_t max_chars = 0) {
  const std::string clean = utf8_replaced(text);
  std::string out;
  std::size_t chars = 0, at = 0;
  for (; at < clean.size() && (max_chars == 0 || chars < max_chars); ++chars) {
    const auto byte = static_cast<unsigned char>(clean[at]);
    const std::string_view seq = std::string_view(clean).substr(at, sequence_bytes(byte));
    at += seq.size();
    const bool kept = keep_line_structure && (byte == '\t' || byte == '\n' || byte == '\r');
    char hex[16];
    if (byte < 0x20 && !kept) {
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    } else if (byte == 0x7f) {
      std::snprintf(hex, sizeof hex, "\\x7f");
    } else if (!keep_line_structure && invisible(decode(seq))) {
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(decode(seq)));
    } else {
      out += seq;
      continue;
    }
    out += hex;
  }
  if (at < clean.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace

std::string one_line(std::string_view text) { return shown(text, false); }

std::string visible_controls(std::string_view text) { return shown(text, true); }

std::string quotable(std::string_view text) { return shown(text, false, kQuotedChars); }

}  // namespace pipebench
