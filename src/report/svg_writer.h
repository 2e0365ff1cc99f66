// SPDX-License-Identifier: Apache-2.0
// SvgWriter: a small builder of standalone SVG 1.1 documents (lines, rectangles, polylines, circles,
// text), escaping every text and attribute, so that a report's plots are inline XML with no script.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipebench {

// Escapes &, <, >, " and ' for XML text and attribute values (XML 1.0 §2.4); control bytes other than tab
// and line breaks as \xNN, bytes that are not UTF-8 as U+FFFD.
[[nodiscard]] std::string xml_escape(std::string_view text);

// A number as SVG writes it: fixed, at most 2 decimals, no exponent; non-finite values become 0.
[[nodiscard]] std::string svg_number(double v);

class SvgWriter {
 public:
  enum class Anchor { kStart, kMiddle, kEnd };

  SvgWriter(double width, double height, std::string_view title);

  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1,
            std::string_view dash = {});
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip = {});
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double stroke_width = 2);
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip = {});
  // rotate_deg: rotation about the anchor point (-90 for a vertical axis label).
  void text(double x, double y, std::string_view content, Anchor anchor = Anchor::kStart, double font_px = 11,
            double rotate_deg = 0, std::string_view fill = "#222");

  // The whole document (<svg xmlns=... viewBox=...> ... </svg>).
  [[nodiscard]] std::string str() const;

 private:
  double width_, height_;
  std::string title_;
  std::ostringstream body_;
};

}  // namespace pipebench
