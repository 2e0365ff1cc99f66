// SPDX-License-Identifier: Apache-2.0
// The plots of a report, built from its inputs: busbw vs size (algbw where the op ran on one rank, whose
// busbw is 0 by definition) and latency vs size per op/dtype (one line per host, or the median and minimum
// over hosts when there are many, with the narrowest link's theoretical bandwidth; a sweep's sizes and a
// plan's message sizes as separate series), the pair matrix per host as a heatmap, predicted vs replayed
// iteration time.
#pragma once

#include <string>
#include <vector>

#include "io/report_model.h"

namespace pipebench {

struct Plot {
  std::string stem;  // file name without ".svg" (Markdown writes the SVG beside report.md)
  std::string title;
  std::string svg;
};

// With more hosts than this, a line plot shows the median and minimum over hosts instead of each host.
inline constexpr std::size_t kMaxHostLines = 8;

[[nodiscard]] std::vector<Plot> build_plots(const ReportInputs& inputs);

}  // namespace pipebench
