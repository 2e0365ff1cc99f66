// SPDX-License-Identifier: Apache-2.0
#include "report/html_report.h"

#include <sstream>

#include "report/svg_writer.h"

namespace pipebench {

namespace {

// System fonts only, so that nothing is fetched; the print rules keep tables and plots whole on a page
// and drop the screen's background colours. `overflow-wrap: anywhere` lets a long unbreakable value (a host
// name, a command line) wrap inside its cell, so it cannot widen a table past the page (CSS Text 3, 5.5:
// unlike break-word, anywhere also lowers the cell's min-content width, which auto table layout uses).
constexpr const char* kCss = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 24px auto; padding: 0 16px;
       max-width: 1100px; color: #1b1b1b; background: #fafafa; line-height: 1.4; overflow-wrap: anywhere; }
h1 { font-size: 1.6em; border-bottom: 2px solid #333; padding-bottom: 4px; }
h2 { font-size: 1.3em; margin-top: 1.6em; border-bottom: 1px solid #bbb; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
table { border-collapse: collapse; margin: 8px 0; font-size: 0.85em; background: #fff; max-width: 100%; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eceff3; }
tr.fail td { background: #fde2e1; }
tr.warn td { background: #fff4cc; }
tr.pass td { background: #e6f4ea; }
tr.none td { background: #f1f1f1; color: #5f6368; }
p.answer { font-size: 1.1em; font-weight: 600; }
details { margin: 8px 0; }
summary { cursor: pointer; color: #333; }
p.note { color: #555; font-size: 0.9em; }
p.warn { color: #8a5a00; }
.verdict { font-size: 1.5em; font-weight: bold; padding: 10px 16px; border-radius: 6px; margin: 10px 0;
           border: 2px solid; }
.verdict.pass { background: #e6f4ea; border-color: #1e7e34; color: #14532d; }
.verdict.warn { background: #fff4cc; border-color: #b7791f; color: #6b4500; }
.verdict.fail { background: #fde2e1; border-color: #b91c1c; color: #7f1d1d; }
.verdict.none { background: #f1f1f1; border-color: #8a8a8a; color: #3c3c3c; }
figure { margin: 12px 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #ddd; background: #fff; }
@media print {
  body { background: #fff; margin: 0; max-width: none; font-size: 10pt; }
  table, figure, .verdict { page-break-inside: avoid; break-inside: avoid; }
  h2, h3 { page-break-after: avoid; break-after: avoid; }
  tr.fail td, tr.warn td, tr.pass td, tr.none td, .verdict { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
)";

// A table with a summary is collapsed in <details> (HTML Living Standard 4.11.1): it opens on a click,
// without a script, and the page's CSP allows no script anyway.
void render_table(std::ostringstream& out, const Block& b) {
  if (!b.summary.empty()) out << "<details>\n<summary>" << xml_escape(b.summary) << "</summary>\n";
  out << "<table>\n";
  bool any_header = false;
  for (const auto& h : b.items) any_header = any_header || !h.empty();
  if (any_header) {
    out << "<tr>";
    for (const auto& h : b.items) out << "<th>" << xml_escape(h) << "</th>";
    out << "</tr>\n";
  }
  for (std::size_t i = 0; i < b.rows.size(); ++i) {
    const std::string cls = i < b.row_class.size() ? b.row_class[i] : "";
    out << (cls.empty() ? "<tr>" : "<tr class=\"" + cls + "\">");
    for (const auto& c : b.rows[i]) out << "<td>" << xml_escape(c) << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
  if (!b.summary.empty()) out << "</details>\n";
}

}  // namespace

std::string render_html(const ReportDocument& doc) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing may load from anywhere, and no script runs: the browser enforces what the page promises.
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
         "'unsafe-inline'\">\n<title>"
      << xml_escape(doc.title) << "</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n<h1>"
      << xml_escape(doc.title) << "</h1>\n";
  for (const auto& b : doc.blocks) {
    switch (b.kind) {
      case Block::Kind::kHeading:
        out << "<h" << b.level << '>' << xml_escape(b.text) << "</h" << b.level << ">\n";
        break;
      case Block::Kind::kParagraph:
        out << (b.css_class.empty() ? "<p>" : "<p class=\"" + b.css_class + "\">") << xml_escape(b.text) << "</p>\n";
        break;
      case Block::Kind::kList:
        out << "<ul>\n";
        for (const auto& item : b.items) out << "<li>" << xml_escape(item) << "</li>\n";
        out << "</ul>\n";
        break;
      case Block::Kind::kTable:
        render_table(out, b);
        break;
      case Block::Kind::kPlot:
        out << "<figure>\n" << doc.plots.at(b.plot).svg << "</figure>\n";
        break;
      case Block::Kind::kVerdict:
        out << "<div class=\"verdict " << b.css_class << "\">" << xml_escape(b.text) << "</div>\n";
        break;
    }
  }
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace pipebench
