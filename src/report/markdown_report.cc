// SPDX-License-Identifier: Apache-2.0
#include "report/markdown_report.h"

#include <cctype>
#include <sstream>

#include "core/terminal_text.h"

namespace pipebench {

namespace {

// Text of any block as literal Markdown: the document holds plain text, and much of it comes from input
// files (host names, command lines, rule and op names), so none of it may become markup. CommonMark
// (0.30, section 2.4) lets every ASCII punctuation character be backslash-escaped. The page stays free of
// HTML entities where it can ("2->3", ">= 1 GiB" read as typed): `>` is markup only opening a line (a block
// quote, section 5.1), where it is backslash-escaped; `<` only before a letter, `/`, `!` or `?` (raw HTML or an
// autolink, sections 6.5 and 6.6) and `&` only before a letter or `#` (an entity reference, section 2.5): there
// alone they are written as entities, because Python-Markdown does not honour `\<` and a hostile host name's
// `<script>` must not become markup. Newlines are flattened, so
// input text never starts a line; where the text itself starts a line (a paragraph, a list item's text) a
// leading `-`, `+`, `=`, `>` or `N.`/`N)` would still start a list, a quote or an underline, so it is escaped too. In a
// table cell
// `|` is escaped (GitHub-flavoured Markdown, section 4.10). Other control bytes (an ESC in a --title, a host
// name) are written as \xNN, and bytes that are not UTF-8 as U+FFFD, as in error lines.
// An underscore between two letters or digits opens no emphasis (CommonMark 6.2, left- and right-flanking
// runs; Python-Markdown alike), so names like all_reduce stay as they are.
bool intraword(const std::string& text, std::size_t k) {
  const auto alnum = [&](std::size_t i) {
    return i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]));
  };
  return k > 0 && alnum(k - 1) && alnum(k + 1);
}

std::string md(const std::string& raw, bool starts_line = false) {
  const std::string text = visible_controls(raw);  // ESC, BEL, ... as \xNN (core/terminal_text.h)
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  for (; i < text.size() && text[i] == ' '; ++i) {
  }
  const std::size_t digits_end = text.find_first_not_of("0123456789", i);
  for (std::size_t k = i; k < text.size(); ++k) {
    const char c = text[k];
    const bool list_start = starts_line && ((k == i && (c == '-' || c == '+' || c == '=' || c == '>')) ||
                                            (k == digits_end && k > i && (c == '.' || c == ')')));
    const char next = k + 1 < text.size() ? text[k + 1] : '\0';
    const bool letter = std::isalpha(static_cast<unsigned char>(next)) != 0;
    if (c == '<' && (letter || next == '/' || next == '!' || next == '?')) {
      out += "&lt;";
    } else if (c == '&' && (letter || next == '#')) {
      out += "&amp;";
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (list_start || std::string("\\`*[]#|~").find(c) != std::string::npos ||
               (c == '_' && !intraword(text, k))) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string cell(const std::string& text) {
  const std::string out = md(text);
  return out.empty() ? " " : out;
}

// Markdown has no collapsed block of its own: a collapsed table's summary is a line above it.
void render_table(std::ostringstream& out, const Block& b) {
  if (!b.summary.empty()) out << md(b.summary, true) << ":\n\n";
  out << '|';
  for (const auto& h : b.items) out << ' ' << cell(h) << " |";
  out << "\n|";
  for (std::size_t i = 0; i < b.items.size(); ++i) out << "---|";
  out << '\n';
  for (std::size_t i = 0; i < b.rows.size(); ++i) {
    out << '|';
    for (const auto& c : b.rows[i]) out << ' ' << cell(c) << " |";
    out << '\n';
  }
  out << '\n';
}

}  // namespace

std::string plot_file(const ReportDocument& doc, std::size_t plot) {
  std::string stem = std::to_string(plot + 1) + "-" + doc.plots.at(plot).stem;
  for (char& c : stem) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return "plot-" + stem + ".svg";
}

std::string render_markdown(const ReportDocument& doc) {
  std::ostringstream out;
  out << "# " << md(doc.title) << "\n\n";
  for (const auto& b : doc.blocks) {
    switch (b.kind) {
      case Block::Kind::kHeading:
        out << std::string(static_cast<std::size_t>(b.level), '#') << ' ' << md(b.text) << "\n\n";
        break;
      case Block::Kind::kParagraph:
        out << (b.css_class == "note" ? "_" + md(b.text) + "_" : md(b.text, true)) << "\n\n";
        break;
      case Block::Kind::kList:
        for (const auto& item : b.items) out << "- " << md(item, true) << '\n';
        out << '\n';
        break;
      case Block::Kind::kTable:
        render_table(out, b);
        break;
      case Block::Kind::kPlot:
        out << "![" << md(doc.plots.at(b.plot).title) << "](" << plot_file(doc, b.plot) << ")\n\n";
        break;
      case Block::Kind::kVerdict:
        out << "> **" << md(b.text) << "**\n\n";
        break;
    }
  }
  return out.str();
}

}  // namespace pipebench
