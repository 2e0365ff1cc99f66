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
// (0x7f) as \xNN, each byte that is not well-formed UTF-8 as U+FFFD (core/utf8.h), and the characters a
// terminal shows as nothing or that reorder what follows (C1 controls, Unicode's format characters such as
// the zero-width space U+200B and the right-to-left override U+202E, the line and paragraph separators) as
// \uXXXX: `0\u200bF0` must not read as the `0F0` it is not.
[[nodiscard]] std::string one_line(std::string_view text);

// The most characters of an input's text an error line quotes: a 1 MB cell is named, not printed.
inline constexpr std::size_t kQuotedChars = 200;

// Input text for quoting in a message ('...'): as one_line shows it, NUL included (a message's what() would
// end at a raw NUL), and beyond kQuotedChars characters cut, followed by "... (N bytes)".
[[nodiscard]] std::string quotable(std::string_view text);

// The same for text written into a document that keeps its own line structure (a report's Markdown or
// HTML): tab, line feed and carriage return are left for the document's escaping, every other control byte
// is shown as \xNN and ill-formed UTF-8 as U+FFFD. An ESC in a report title, read with `cat report.md`,
// would otherwise drive the terminal as it would in an error line.
[[nodiscard]] std::string visible_controls(std::string_view text);

}  // namespace pipebench
