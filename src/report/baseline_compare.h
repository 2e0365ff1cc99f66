// SPDX-License-Identifier: Apache-2.0
// Baseline compare (as Google Benchmark's tools/compare.py): each point of the new results beside the
// same point of the baseline, with the ratio. A change counts only when it is beyond both the rule's
// percentage and the two runs' spread, so that noise is not reported as a regression.
#pragma once

#include <vector>

#include "io/report_model.h"
#include "report/metric.h"

namespace pipebench {

// The spread of a record's metric value: the value x its relative standard deviation
// (stats.stddev_us / stats.median_us), the noise of its timed batches. 0 without statistics.
[[nodiscard]] double metric_spread(double value, const ResultRecord& r);

// Points are matched by op, dtype, redop, size, placement, root, ranks and pairs, and by host unless
// each side has a single host (comparing two machines). A point on one side only is listed with the
// other side empty. The change of a matched point counts when |new - old| > pct% of |old| and
// |new - old| > spread(new) + spread(old).
[[nodiscard]] std::vector<ComparedPoint> compare_to_baseline(const std::vector<InputFile<ResultSet>>& now,
                                                             const std::vector<InputFile<ResultSet>>& baseline,
                                                             const Metric& metric, double pct);

}  // namespace pipebench
