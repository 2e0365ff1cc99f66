// SPDX-License-Identifier: Apache-2.0
// Cost models.
#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/units.h"
#include "topology/topology.h"

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

// nvidia-smi class order, for "the worst pair of a group".
int class_order(const std::string& c) {
  if (c == "X") return 0;
  if (c.rfind("NV", 0) == 0) return 1;
  static const char* kOrder[] = {"PIX", "PXB", "PHB", "NODE", "SYS", "NET"};
  for (int i = 0; i < 6; ++i) {
    if (c == kOrder[i]) return 2 + i;
  }
  return 9;
}

}  // namespace

std::map<int, int> rank_to_gpu(const nlohmann::json& src) {
  const bool results = src.value("schema", "") == "pipebench.results/1" || src.contains("system");
  const nlohmann::json topo = results ? src.value("system", nlohmann::json::object()).value("topology", nlohmann::json::object()) : src;
  std::map<int, int> gpu_of_rank;
  if (results) {
    std::map<std::string, int> gpu_of_bus;
    for (const auto& g : topo.value("gpus", nlohmann::json::array())) {
      gpu_of_bus[normalize_bus_id(g.value("bus_id", ""))] = g.value("index", -1);
    }
    for (const auto& d : src["system"].value("devices", nlohmann::json::array())) {
      const auto it = gpu_of_bus.find(normalize_bus_id(d.value("bus_id", "")));
      if (it != gpu_of_bus.end()) gpu_of_rank[d.value("rank", -1)] = it->second;
    }
  } else {
    for (const auto& g : topo.value("gpus", nlohmann::json::array())) gpu_of_rank[g.value("index", -1)] = g.value("index", -1);
  }
  return gpu_of_rank;
}

RankClassMap::RankClassMap(const nlohmann::json& src) {
  const bool results = src.value("schema", "") == "pipebench.results/1" || src.contains("system");
  const nlohmann::json topo = results ? src.value("system", nlohmann::json::object()).value("topology", nlohmann::json::object()) : src;
  if (!topo.contains("pairs")) return;
  const std::map<int, int> gpu_of_rank = rank_to_gpu(src);
  std::map<std::pair<int, int>, std::string> by_gpu;
  for (const auto& p : topo["pairs"]) {
    if (p.value("kind", "") == "gpu-gpu") by_gpu[{p["a"].get<int>(), p["b"].get<int>()}] = p.value("class", "");
  }
  for (const auto& [ra, ga] : gpu_of_rank) {
    for (const auto& [rb, gb] : gpu_of_rank) {
      const auto it = by_gpu.find({ga, gb});
      if (ra != rb && it != by_gpu.end()) pair_class_[{ra, rb}] = {class_order(it->second), it->second};
    }
  }
}

std::string RankClassMap::class_of(const std::vector<int>& ranks) const {
  if (ranks.size() < 2) return ranks.size() == 1 ? "X" : "";
  std::pair<int, std::string> worst{-1, ""};
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      const auto it = pair_class_.find({ranks[i], ranks[j]});
      if (it == pair_class_.end()) return "";
      if (it->second.first > worst.first) worst = it->second;
    }
  }
  return worst.second;
}

CommCost AssumedCost::cost(const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) const {
  double gbps = gbps_, latency = latency_us_;
  std::string source = "assumed";
  if (!per_class_.empty()) {
    const std::string cls = classes_.class_of(ranks);
    const auto it = per_class_.find(cls);
    if (it != per_class_.end()) {
      gbps = it->second.first;
      latency = it->second.second;
      source = "assumed (" + cls + ")";
    }
  }
  const double factor = op == "pair" ? 1 : bus_factor(op, ranks.size());
  const double us = (ranks.size() <= 1 && op != "pair" ? 0 : latency) +
                    static_cast<double>(bytes) * factor / (gbps * kBytesPerGB) * kUsPerSecond;
  return {ns(us), source};
}

MeasuredCost::MeasuredCost(const nlohmann::json& results, const std::string& path) : path_(path), classes_(results) {
  if (!results.is_object() || results.value("schema", "") != "pipebench.results/1") {
    throw UsageError("--table " + path + ": not a pipebench.results/1 file");
  }
  for (const auto& r : results.value("records", nlohmann::json::array())) {
    if (r.contains("error") || !r.contains("ranks") || r.value("time_us", 0.0) <= 0 || r.value("size_bytes", 0) <= 0) {
      continue;
    }
    std::vector<int> ranks = r["ranks"].get<std::vector<int>>();
    std::string op = r.value("op", "");
    // Pipeline neighbours send both ways at once (1F1B's batched calls, interleaved's overlap): the
    // bidirectional figure is what their transfers see; one-way records are kept apart as a fallback.
    if (op == "pair" && !r.value("bidirectional", true)) op = "pair-oneway";
    std::sort(ranks.begin(), ranks.end());
    points_[{op, ranks}].emplace_back(r["size_bytes"].get<double>(), r["time_us"].get<double>());
  }
  if (points_.empty()) throw UsageError("--table " + path + ": no measured record to predict from");
  for (auto& [key, v] : points_) std::sort(v.begin(), v.end());
}

CommCost MeasuredCost::cost(const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) const {
  auto it = points_.find({op, ranks});
  if (it == points_.end() && op == "pair") {
    it = points_.find({"pair-oneway", ranks});
    if (it != points_.end()) {
      CommCost c = interpolate(it->second, bytes);
      c.source += " (one-way figure)";
      return c;
    }
  }
  if (it != points_.end()) return interpolate(it->second, bytes);
  const std::string cls = classes_.class_of(ranks);
  if (fallback_ && !cls.empty()) {
    for (const auto& [key, v] : points_) {
      if (key.first == op && key.second.size() == ranks.size() && classes_.class_of(key.second) == cls) {
        CommCost c = interpolate(v, bytes);
        c.source += " (class " + cls + " fallback)";
        return c;
      }
    }
  }
  throw UsageError("--table " + path_ + ": no measurement of " + describe(op, ranks) +
                   (cls.empty() ? "" : " (class " + cls + ")") +
                   " (run pipebench bench --plan with this plan on these ranks" +
                   (fallback_ ? "" : ", or allow --class-fallback") + ")");
}

CommCost MeasuredCost::interpolate(const std::vector<std::pair<double, double>>& v, std::int64_t bytes) const {
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
