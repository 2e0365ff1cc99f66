// SPDX-License-Identifier: Apache-2.0
#include "report/charts.h"

#include <algorithm>
#include <cmath>

#include "core/printf_string.h"
#include "core/units.h"
#include "report/svg_writer.h"

namespace pipebench {

namespace {

// A colour-blind-safe qualitative palette (Okabe & Ito, "Color Universal Design", 2008).
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
constexpr double kWidth = 720, kHeight = 360;
constexpr double kLeft = 70, kRight = 170, kTop = 34, kBottom = 50;

std::string fmt(double v) {
  return printf_string(v != 0 && (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-2) ? "%.2g" : "%.4g", v);
}

void draw_frame(SvgWriter& svg, const std::string& title, const std::string& x_label, const std::string& y_label) {
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  svg.text(kWidth / 2, 20, title, SvgWriter::Anchor::kMiddle, 14);
  svg.line(kLeft, kTop + plot_h, kLeft + plot_w, kTop + plot_h, "#444");
  svg.line(kLeft, kTop, kLeft, kTop + plot_h, "#444");
  svg.text(kLeft + plot_w / 2, kHeight - 10, x_label, SvgWriter::Anchor::kMiddle, 12);
  svg.text(16, kTop + plot_h / 2, y_label, SvgWriter::Anchor::kMiddle, 12, -90);
}

void draw_legend(SvgWriter& svg, const std::vector<std::string>& labels) {
  double y = kTop + 10;
  for (std::size_t i = 0; i < labels.size(); ++i, y += 18) {
    svg.rect(kWidth - kRight + 14, y - 9, 12, 12, kPalette[i % 8]);
    svg.text(kWidth - kRight + 32, y + 1, labels[i], SvgWriter::Anchor::kStart, 11);
  }
}

}  // namespace

std::vector<double> log2_ticks(double min_bytes, double max_bytes) {
  std::vector<double> ticks;
  if (!(min_bytes > 0) || !(max_bytes >= min_bytes)) return ticks;
  const int lo = static_cast<int>(std::floor(std::log2(min_bytes)));
  const int hi = std::max(lo + 1, static_cast<int>(std::ceil(std::log2(max_bytes))));
  const int step = std::max(1, (hi - lo + 11) / 12);  // at most about 12 labels
  for (int e = lo; e <= hi; e += step) ticks.push_back(std::ldexp(1.0, e));
  if (std::log2(ticks.back()) < hi) ticks.push_back(std::ldexp(1.0, hi));
  return ticks;
}

std::vector<double> linear_ticks(double max_value) {
  if (!(max_value > 0) || !std::isfinite(max_value)) return {0, 1};
  const double raw = max_value / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  std::vector<double> ticks;
  for (double t = 0; t < max_value + step * 0.999; t += step) ticks.push_back(t);
  return ticks;
}

std::string line_chart_svg(const LineChart& chart) {
  SvgWriter svg(kWidth, kHeight, chart.title);
  draw_frame(svg, chart.title, "message size (bytes, log2 scale)", chart.y_label);
  double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = chart.reference_y.value_or(0);
  for (const auto& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (!(x > 0) || !std::isfinite(y) || (chart.log_y && !(y > 0))) continue;
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  }
  if (xmax <= 0) {
    svg.text(kWidth / 2, kHeight / 2, "no data", SvgWriter::Anchor::kMiddle, 13);
    return svg.str();
  }
  const auto xt = log2_ticks(xmin, xmax);
  const double lx0 = std::log2(xt.front()), lx1 = std::max(std::log2(xt.back()), lx0 + 1);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (std::log2(x) - lx0) / (lx1 - lx0) * plot_w; };
  std::vector<double> yt;
  if (chart.log_y) {
    for (int e = static_cast<int>(std::floor(std::log10(ymin))); e <= static_cast<int>(std::ceil(std::log10(ymax)));
         ++e) {
      yt.push_back(std::pow(10.0, e));
    }
    if (yt.size() < 2) yt.push_back(yt.back() * 10);
  } else {
    yt = linear_ticks(ymax * 1.05);
  }
  const double y0 = chart.log_y ? std::log10(yt.front()) : 0, y1 = chart.log_y ? std::log10(yt.back()) : yt.back();
  auto py = [&](double y) {
    const double v = chart.log_y ? std::log10(std::max(y, 1e-300)) : y;
    return kTop + plot_h - (v - y0) / std::max(y1 - y0, 1e-300) * plot_h;
  };
  for (const double t : xt) {
    svg.line(px(t), kTop, px(t), kTop + plot_h, "#e4e4e4");
    svg.text(px(t), kTop + plot_h + 15, format_size(static_cast<std::uint64_t>(t)), SvgWriter::Anchor::kMiddle, 10);
  }
  for (const double t : yt) {
    svg.line(kLeft, py(t), kLeft + plot_w, py(t), "#e4e4e4");
    svg.text(kLeft - 6, py(t) + 4, fmt(t), SvgWriter::Anchor::kEnd, 10);
  }
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    // Only the points the axes can place; each tooltip names its own point (not its index's in the input).
    auto pts = chart.series[i].points;
    pts.erase(std::remove_if(pts.begin(), pts.end(),
                             [&chart](const auto& p) {
                               return !(p.first > 0 && std::isfinite(p.second) && (!chart.log_y || p.second > 0));
                             }),
              pts.end());
    std::sort(pts.begin(), pts.end());
    std::vector<std::pair<double, double>> xy;
    for (const auto& [x, y] : pts) xy.emplace_back(px(x), py(y));
    svg.polyline(xy, kPalette[i % 8]);
    for (std::size_t k = 0; k < xy.size(); ++k) {
      svg.circle(xy[k].first, xy[k].second, 2.5, kPalette[i % 8],
                 chart.series[i].label + ": " + format_size(static_cast<std::uint64_t>(pts[k].first)) + " " +
                     fmt(pts[k].second));
    }
    labels.push_back(chart.series[i].label);
  }
  if (chart.reference_y) {
    svg.line(kLeft, py(*chart.reference_y), kLeft + plot_w, py(*chart.reference_y), "#C00000", 1.5, "6 4");
    svg.text(kLeft + plot_w - 4, py(*chart.reference_y) - 5, chart.reference_label, SvgWriter::Anchor::kEnd, 10, 0,
             "#C00000");
  }
  draw_legend(svg, labels);
  return svg.str();
}

std::string heatmap_svg(const Heatmap& map) {
  const std::size_t n = map.labels.size();
  const double cell = n > 12 ? 36 : 56, left = 60, top = 50;
  const double w = std::max(360.0, left + cell * static_cast<double>(n) + 20);
  const double h = top + cell * static_cast<double>(n) + 40;
  SvgWriter svg(w, h, map.title);
  svg.text(w / 2, 20, map.title, SvgWriter::Anchor::kMiddle, 14);
  svg.text(left + cell * static_cast<double>(n) / 2, 40, "destination", SvgWriter::Anchor::kMiddle, 11);
  svg.text(14, top + cell * static_cast<double>(n) / 2, "source", SvgWriter::Anchor::kMiddle, 11, -90);
  double vmax = 0;
  for (const auto& row : map.values) {
    for (const auto& v : row) vmax = std::max(vmax, v.value_or(0));
  }
  for (std::size_t i = 0; i < n; ++i) {
    svg.text(left - 6, top + cell * (static_cast<double>(i) + 0.55), map.labels[i], SvgWriter::Anchor::kEnd, 10);
    svg.text(left + cell * (static_cast<double>(i) + 0.5), top + cell * static_cast<double>(n) + 14, map.labels[i],
             SvgWriter::Anchor::kMiddle, 10);
    for (std::size_t j = 0; j < n; ++j) {
      const double x = left + cell * static_cast<double>(j), y = top + cell * static_cast<double>(i);
      const auto v = i < map.values.size() && j < map.values[i].size() ? map.values[i][j] : std::nullopt;
      if (!v) {
        svg.rect(x, y, cell - 2, cell - 2, "#f2f2f2");
        continue;
      }
      // Light (low) to dark blue (high): the value's share of the largest value sets the lightness.
      const double share = vmax > 0 ? std::clamp(*v / vmax, 0.0, 1.0) : 0;
      const std::string fill = printf_string("#%02x%02x%02x", static_cast<int>(230 - 200 * share),
                                             static_cast<int>(240 - 150 * share), 255 - static_cast<int>(60 * share));
      const auto lim = i < map.limits.size() && j < map.limits[i].size() ? map.limits[i][j] : std::nullopt;
      std::string pct = lim && *lim > 0 ? fmt(100 * *v / *lim) + "%" : "";
      svg.rect(
          x, y, cell - 2, cell - 2, fill,
          map.labels[i] + " -> " + map.labels[j] + ": " + fmt(*v) + " " + map.unit + (pct.empty() ? "" : ", " + pct));
      const char* ink = share > 0.55 ? "#fff" : "#111";
      svg.text(x + cell / 2 - 1, y + cell / 2 - (pct.empty() ? -3 : 2), fmt(*v), SvgWriter::Anchor::kMiddle, 10, 0,
               ink);
      if (!pct.empty()) svg.text(x + cell / 2 - 1, y + cell / 2 + 10, pct, SvgWriter::Anchor::kMiddle, 9, 0, ink);
    }
  }
  svg.text(left, h - 8, "cells: " + map.unit + " and % of the path's theoretical limit", SvgWriter::Anchor::kStart, 10);
  return svg.str();
}

std::string bar_chart_svg(const BarChart& chart) {
  SvgWriter svg(kWidth, kHeight, chart.title);
  draw_frame(svg, chart.title, chart.note, chart.y_label);
  std::vector<std::string> series;
  double vmax = 0;
  for (const auto& g : chart.groups) {
    for (const auto& [name, v] : g.bars) {
      if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
      if (std::isfinite(v)) vmax = std::max(vmax, v);
    }
  }
  const auto yt = linear_ticks(vmax * 1.05);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto py = [&](double y) { return kTop + plot_h - y / yt.back() * plot_h; };
  for (const double t : yt) {
    svg.line(kLeft, py(t), kLeft + plot_w, py(t), "#e4e4e4");
    svg.text(kLeft - 6, py(t) + 4, fmt(t), SvgWriter::Anchor::kEnd, 10);
  }
  const double group_w = plot_w / static_cast<double>(std::max<std::size_t>(1, chart.groups.size()));
  const double bar_w = group_w * 0.8 / static_cast<double>(std::max<std::size_t>(1, series.size()));
  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const double gx = kLeft + group_w * static_cast<double>(g) + group_w * 0.1;
    for (const auto& [name, v] : chart.groups[g].bars) {
      if (!std::isfinite(v)) continue;
      const auto s = static_cast<std::size_t>(std::find(series.begin(), series.end(), name) - series.begin());
      const double x = gx + bar_w * static_cast<double>(s);
      svg.rect(x, py(v), bar_w - 2, kTop + plot_h - py(v), kPalette[s % 8],
               chart.groups[g].label + " " + name + ": " + fmt(v));
      svg.text(x + bar_w / 2 - 1, py(v) - 3, fmt(v), SvgWriter::Anchor::kMiddle, 9);
    }
    svg.text(gx + group_w * 0.4, kTop + plot_h + 15, chart.groups[g].label, SvgWriter::Anchor::kMiddle, 10);
  }
  draw_legend(svg, series);
  return svg.str();
}

}  // namespace pipebench
