// SPDX-License-Identifier: Apache-2.0
// Error messages quote what input files hold (a rules file's metric, a schedule file's cell), and they go
// to a terminal. Written as read, an escape sequence in a file would drive the terminal (ESC ]0;...BEL
// retitles the window, ESC [2J clears it) and a line break would print a second, forged line after
// pipebench's one ("pipebench: ...\nall rules passed"). These show such bytes as \xNN instead.
#pragma once

#include <string>
#include <string_view>

namespace pipebench {

// `text` as one printable line: every C0 control byte (0x00-0x1f, line breaks and ESC among them) and DEL
// (0x7f) as \xNN, and each byte that is not well-formed UTF-8 as U+FFFD (core/utf8.h).
[[nodiscard]] std::string one_line(std::string_view text);

// The same for text written into a document that keeps its own line structure (a report's Markdown or
// HTML): tab, line feed and carriage return are left for the document's escaping, every other control byte
// is shown as \xNN and ill-formed UTF-8 as U+FFFD. An ESC in a report title, read with `cat report.md`,
// would otherwise drive the terminal as it would in an error line.
[[nodiscard]] std::string visible_controls(std::string_view text);

}  // namespace pipebench
