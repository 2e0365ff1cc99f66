// SPDX-License-Identifier: Apache-2.0
#include "report/svg_writer.h"

#include <cmath>

#include "core/printf_string.h"
#include "core/terminal_text.h"

namespace pipebench {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Control bytes other than tab and line breaks are not allowed in XML 1.0 documents (section 2.2): they are
  // shown as \xNN, and bytes that are not UTF-8 as U+FFFD, as in error lines (core/terminal_text.h).
  for (const char c : visible_controls(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_number(double v) {
  if (!std::isfinite(v)) v = 0;
  std::string s(printf_string("%.2f", v));
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

namespace {

const char* anchor_name(SvgWriter::Anchor a) {
  switch (a) {
    case SvgWriter::Anchor::kMiddle:
      return "middle";
    case SvgWriter::Anchor::kEnd:
      return "end";
    case SvgWriter::Anchor::kStart:
      break;
  }
  return "start";
}

// A shape's end: "/>", or its tooltip as a <title> child.
std::string shape_end(const char* tag, std::string_view tooltip) {
  return tooltip.empty() ? "/>\n" : "><title>" + xml_escape(tooltip) + "</title></" + tag + ">\n";
}

}  // namespace

SvgWriter::SvgWriter(double width, double height, std::string_view title)
    : width_(width), height_(height), title_(title) {}

void SvgWriter::line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width,
                     std::string_view dash) {
  body_ << "<line x1=\"" << svg_number(x1) << "\" y1=\"" << svg_number(y1) << "\" x2=\"" << svg_number(x2) << "\" y2=\""
        << svg_number(y2) << "\" stroke=\"" << xml_escape(stroke) << "\" stroke-width=\"" << svg_number(stroke_width)
        << '"';
  if (!dash.empty()) body_ << " stroke-dasharray=\"" << xml_escape(dash) << '"';
  body_ << "/>\n";
}

void SvgWriter::rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip) {
  body_ << "<rect x=\"" << svg_number(x) << "\" y=\"" << svg_number(y) << "\" width=\"" << svg_number(std::max(w, 0.0))
        << "\" height=\"" << svg_number(std::max(h, 0.0)) << "\" fill=\"" << xml_escape(fill) << '"'
        << shape_end("rect", tooltip);
}

void SvgWriter::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                         double stroke_width) {
  if (points.empty()) return;
  body_ << "<polyline fill=\"none\" stroke=\"" << xml_escape(stroke) << "\" stroke-width=\"" << svg_number(stroke_width)
        << "\" points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i) body_ << ' ';
    body_ << svg_number(points[i].first) << ',' << svg_number(points[i].second);
  }
  body_ << "\"/>\n";
}

void SvgWriter::circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip) {
  body_ << "<circle cx=\"" << svg_number(cx) << "\" cy=\"" << svg_number(cy) << "\" r=\"" << svg_number(r)
        << "\" fill=\"" << xml_escape(fill) << '"' << shape_end("circle", tooltip);
}

void SvgWriter::text(double x, double y, std::string_view content, Anchor anchor, double font_px, double rotate_deg,
                     std::string_view fill) {
  body_ << "<text x=\"" << svg_number(x) << "\" y=\"" << svg_number(y) << "\" font-size=\"" << svg_number(font_px)
        << "\" text-anchor=\"" << anchor_name(anchor) << "\" fill=\"" << xml_escape(fill) << '"';
  if (rotate_deg != 0) {
    body_ << " transform=\"rotate(" << svg_number(rotate_deg) << ' ' << svg_number(x) << ' ' << svg_number(y) << ")\"";
  }
  body_ << '>' << xml_escape(content) << "</text>\n";
}

std::string SvgWriter::str() const {
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << svg_number(width_) << "\" height=\""
      << svg_number(height_) << "\" viewBox=\"0 0 " << svg_number(width_) << ' ' << svg_number(height_)
      << "\" font-family=\"sans-serif\" role=\"img\">\n<title>" << xml_escape(title_)
      << "</title>\n<rect x=\"0\" y=\"0\" width=\"" << svg_number(width_) << "\" height=\"" << svg_number(height_)
      << "\" fill=\"#fff\"/>\n"
      << body_.str() << "</svg>\n";
  return out.str();
}

}  // namespace pipebench
