// SPDX-License-Identifier: Apache-2.0
// Charts of a report as standalone SVG: a line chart over a log2 size axis (busbw or latency vs size,
// with an optional reference line such as the narrowest link's theoretical bandwidth), a heatmap (the
// pair matrix), and grouped bars (predicted vs replayed iteration time per schedule).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pipebench {

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (size_bytes, value), any order
};

struct LineChart {
  std::string title;
  std::string y_label;  // with its unit, e.g. "busbw (GB/s)"
  bool log_y = false;   // log10 y axis (latency spans decades)
  std::vector<Series> series;
  std::optional<double> reference_y;  // a horizontal line (e.g. the narrowest link's GB/s)
  std::string reference_label;
};

struct Heatmap {
  std::string title;
  std::string unit;                 // of the values, e.g. "GB/s"
  std::vector<std::string> labels;  // rows and columns
  std::vector<std::vector<std::optional<double>>> values;
  std::vector<std::vector<std::optional<double>>> limits;  // same shape; cells show value/limit in %
};

struct BarGroup {
  std::string label;
  std::vector<std::pair<std::string, double>> bars;  // (series, value)
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<BarGroup> groups;
  std::string note;  // a line under the chart (e.g. break-even bandwidth)
};

// Size axis ticks: powers of two from floor(log2 min) to ceil(log2 max), labelled "8", "1K", "64M"...
[[nodiscard]] std::vector<double> log2_ticks(double min_bytes, double max_bytes);
// "Nice" linear ticks (1, 2, 5 x 10^k) covering [0, max].
[[nodiscard]] std::vector<double> linear_ticks(double max_value);

[[nodiscard]] std::string line_chart_svg(const LineChart& chart);
[[nodiscard]] std::string heatmap_svg(const Heatmap& map);
[[nodiscard]] std::string bar_chart_svg(const BarChart& chart);

}  // namespace pipebench
