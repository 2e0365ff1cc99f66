// SPDX-License-Identifier: Apache-2.0
// Order statistics, mean and population standard deviation of timing samples.
#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pipebench {

Stats summarize(std::vector<double> s) {
  Stats st;
  st.samples = s.size();
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  st.min_us = s.front();
  st.max_us = s.back();
  st.median_us = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  const auto rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(n)));
  st.p95_us = s[std::max<std::size_t>(rank, 1) - 1];
  st.mean_us = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(n);
  double sq = 0;
  for (double v : s) sq += (v - st.mean_us) * (v - st.mean_us);
  st.stddev_us = std::sqrt(sq / static_cast<double>(n));
  return st;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  return 0.5 * (*std::max_element(values.begin(), mid) + *mid);
}

}  // namespace pipebench
