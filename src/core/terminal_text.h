// SPDX-License-Identifier: Apache-2.0
// Error messages quote what input files hold (a rules file's metric, a schedule file's cell), and they go
// to a terminal. Written as read, an escape sequence in a file would drive the terminal (ESC ]0;...BEL
// retitles the window, ESC [2J clears it) and a line break would print a second, forged line after
// pipebench's one ("pipebench: ...\nall rules passed"). These shows such bytes as \xNN instead.
#pragma once

#include <string>
#include <string_view>

namespace pipebench {

// `text` as one printable line: every C0 control byte (0x00-0x1f, line breaks and ESC among them) and DEL
// (0x7f) as \xNN, and each byte that is not well-formed UTF-8 as U+FFFD (core/utf8.h).
[[nodiscard]] std::string one_line(std::string_view text);

}  // namespace pipebench
