// SPDX-License-Identifier: Apache-2.0
#include "report/markdown_report.h"

#include <sstream>

namespace pipebench {

namespace {

// A table cell: pipes escaped and newlines flattened (GitHub-flavoured Markdown tables, §4.10).
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out.empty() ? " " : out;
}

void render_table(std::ostringstream& out, const Block& b) {
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
  out << "# " << doc.title << "\n\n";
  for (const auto& b : doc.blocks) {
    switch (b.kind) {
      case Block::Kind::kHeading:
        out << std::string(static_cast<std::size_t>(b.level), '#') << ' ' << b.text << "\n\n";
        break;
      case Block::Kind::kParagraph:
        out << (b.css_class == "note" ? "_" + b.text + "_" : b.text) << "\n\n";
        break;
      case Block::Kind::kList:
        for (const auto& item : b.items) out << "- " << item << '\n';
        out << '\n';
        break;
      case Block::Kind::kTable:
        render_table(out, b);
        break;
      case Block::Kind::kPlot:
        out << "![" << doc.plots.at(b.plot).title << "](" << plot_file(doc, b.plot) << ")\n\n";
        break;
      case Block::Kind::kVerdict:
        out << "> **" << b.text << "**\n\n";
        break;
    }
  }
  return out.str();
}

}  // namespace pipebench
