// SPDX-License-Identifier: Apache-2.0
// Summary statistics over the per-op times of the timed batches of one measured point.
#pragma once

#include <cstddef>
#include <vector>

namespace pipebench {

struct Stats {
  std::size_t samples = 0;
  double min_us = 0, median_us = 0, mean_us = 0, p95_us = 0, max_us = 0, stddev_us = 0;
};

// median: mean of the two middle values for an even count; p95: nearest-rank (the ceil(0.95 n)-th
// smallest, as nccl-tests' computeIterStats); stddev: population standard deviation (also as there).
// An empty input gives all zeros.
[[nodiscard]] Stats summarize(std::vector<double> samples_us);

// The median of `values` as summarize takes it (the mean of the two middle values for an even count); 0 for none.
[[nodiscard]] double median(std::vector<double> values);

}  // namespace pipebench
