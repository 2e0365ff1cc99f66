// SPDX-License-Identifier: Apache-2.0
#include "backend/gemm_steps.h"

#include <cmath>
#include <limits>

namespace pipebench {
namespace {

// Each GEMM's share of the layer's FLOPs.
std::vector<double> shares_of(const std::vector<GemmShape>& layer) {
  double total = 0;
  for (const auto& g : layer) total += g.flops();
  std::vector<double> out;
  for (const auto& g : layer) out.push_back(total > 0 ? g.flops() / total : 0);
  return out;
}

// The subset of GEMMs whose shares sum closest to `rest` (exhaustive: at most 2^16 subsets).
std::vector<std::size_t> closest_subset(const std::vector<double>& share, double rest) {
  const std::size_t n = share.size();
  std::uint32_t best_mask = 0;
  double best = rest;  // the empty subset
  for (std::uint32_t mask = 1; mask < (1u << n); ++mask) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += (mask >> i & 1u) ? share[i] : 0;
    if (std::fabs(sum - rest) < best) {
      best = std::fabs(sum - rest);
      best_mask = mask;
    }
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (best_mask >> i & 1u) out.push_back(i);
  }
  return out;
}

// In order, each GEMM that fits the rest to within half its share.
std::vector<std::size_t> greedy_subset(const std::vector<double>& share, double rest) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < share.size(); ++i) {
    if (rest >= share[i] / 2) {
      out.push_back(i);
      rest -= share[i];
    }
  }
  return out;
}

}  // namespace

GemmStep gemm_step(std::int64_t duration_ns, std::int64_t layer_fwd_ns, const std::vector<GemmShape>& layer) {
  GemmStep s;
  if (layer.empty() || duration_ns <= 0) return s;
  if (layer_fwd_ns <= 0) {  // no planned rate: one pass, as a step of unknown length
    s.passes = 1;
    s.planned_layers = s.run_layers = 1;
    return s;
  }
  s.planned_layers = static_cast<double>(duration_ns) / static_cast<double>(layer_fwd_ns);
  s.passes = static_cast<std::int64_t>(std::floor(s.planned_layers));
  const double rest = s.planned_layers - static_cast<double>(s.passes);
  const std::vector<double> share = shares_of(layer);
  s.extra = layer.size() <= 16 ? closest_subset(share, rest) : greedy_subset(share, rest);
  s.run_layers = static_cast<double>(s.passes);
  for (std::size_t i : s.extra) s.run_layers += share[i];
  if (s.passes == 0 && s.extra.empty()) {  // shorter than every GEMM: the smallest one
    std::size_t smallest = 0;
    for (std::size_t i = 1; i < share.size(); ++i) {
      if (share[i] < share[smallest]) smallest = i;
    }
    s.extra.push_back(smallest);
    s.run_layers = share[smallest];
  }
  return s;
}

}  // namespace pipebench
