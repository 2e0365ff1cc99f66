// SPDX-License-Identifier: Apache-2.0
// Cost models.
#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/units.h"

namespace pipebench {
namespace {

// Bus factors of nccl-tests doc/PERFORMANCE.md: bytes each rank's link carries per byte of the op.
double bus_factor(const std::string& op, std::size_t n) {
  const double nn = static_cast<double>(n);
  if (n <= 1) return 0;
  if (op == "all_reduce") return 2 * (nn - 1) / nn;
  if (op == "all_gather" || op == "reduce_scatter") return (nn - 1) / nn;
  return 1;
}

SimTime ns(double us) { return static_cast<SimTime>(std::llround(us * 1000)); }

std::string describe(const std::string& op, const std::vector<int>& ranks) {
  std::string s = op + " on {";
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  return s + (ranks.size() > 8 ? ",...}" : "}");
}

}  // namespace

CommCost AssumedCost::cost(const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) const {
  const double factor = op == "pair" ? 1 : bus_factor(op, ranks.size());
  const double us = (ranks.size() <= 1 && op != "pair" ? 0 : latency_us_) +
                    static_cast<double>(bytes) * factor / (gbps_ * kBytesPerGB) * kUsPerSecond;
  return {ns(us), "assumed"};
}

MeasuredCost::MeasuredCost(const nlohmann::json& results, const std::string& path) : path_(path) {
  if (!results.is_object() || results.value("schema", "") != "pipebench.results/1") {
    throw UsageError("--table " + path + ": not a pipebench.results/1 file");
  }
  for (const auto& r : results.value("records", nlohmann::json::array())) {
    if (r.contains("error") || !r.contains("ranks") || r.value("time_us", 0.0) <= 0 || r.value("size_bytes", 0) <= 0) {
      continue;
    }
    std::vector<int> ranks = r["ranks"].get<std::vector<int>>();
    std::string op = r.value("op", "");
    if (op == "pair" && r.contains("pairs") && !r["pairs"].empty()) {
      // A pair record on a sub-communicator names its ranks in `ranks`.
      std::sort(ranks.begin(), ranks.end());
    }
    std::sort(ranks.begin(), ranks.end());
    points_[{op, ranks}].emplace_back(r["size_bytes"].get<double>(), r["time_us"].get<double>());
  }
  if (points_.empty()) throw UsageError("--table " + path + ": no measured record to predict from");
  for (auto& [key, v] : points_) std::sort(v.begin(), v.end());
}

CommCost MeasuredCost::cost(const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) const {
  const auto it = points_.find({op, ranks});
  if (it == points_.end()) {
    throw UsageError("--table " + path_ + ": no measurement of " + describe(op, ranks) +
                     " (run pipebench bench --plan with this plan on these ranks)");
  }
  const auto& v = it->second;
  const double x = static_cast<double>(bytes);
  if (v.size() == 1) return {ns(v[0].second * (x > v[0].first ? x / v[0].first : 1.0)), "measured (scaled)"};
  // Log-log interpolation inside the measured range.
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (x >= v[i].first && x <= v[i + 1].first) {
      if (v[i + 1].first == v[i].first) return {ns(v[i].second), "measured"};
      const double f = std::log(x / v[i].first) / std::log(v[i + 1].first / v[i].first);
      return {ns(std::exp(std::log(v[i].second) + f * std::log(v[i + 1].second / v[i].second))), "measured"};
    }
  }
  // Alpha-beta through the two nearest points: t = alpha + x / beta.
  const bool above = x > v.back().first;
  const auto& a = above ? v[v.size() - 2] : v[0];
  const auto& b = above ? v.back() : v[1];
  const double slope = (b.second - a.second) / (b.first - a.first);
  const double alpha = a.second - slope * a.first;
  return {ns(std::max(0.0, alpha + std::max(slope, 0.0) * x)), "measured (extrapolated)"};
}

}  // namespace pipebench
