// SPDX-License-Identifier: Apache-2.0
// Cost models.
#include "sim/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/units.h"
#include "sim/model_error.h"
#include "topology/topology.h"

namespace pipebench {
namespace {

// Bytes each rank's link carries per byte of the op: the op's own bus factor (nccl-tests
// doc/PERFORMANCE.md, kept with each op in collectives/). A group of one moves nothing.
double link_bytes_factor(const Op& op, std::size_t n) {
  if (!op.traits().is_transfer && n <= 1) return 0;
  return op.bus_bw_factor(static_cast<int>(n));
}

// The key of a transfer's one-way curve, apart from its bidirectional one.
std::string one_way(const std::string& op) { return op + "-oneway"; }

std::string describe(const std::string& op, const std::vector<int>& ranks) {
  std::string s = op + " on {";
  for (std::size_t i = 0; i < ranks.size() && i < 8; ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  return s + (ranks.size() > 8 ? ",...}" : "}");
}

// A cost in ns; an infinite, negative or absurd one (a table's time_us 1e308, --link-gbps 1e-300) is bad
// input naming the message, never a wrapped or negative time.
SimTime ns(double us, const std::string& op, const std::vector<int>& ranks, std::int64_t bytes) {
  return checked_ns_from_ms(us / 1e3, "the cost of " + describe(op, ranks) + " at " + std::to_string(bytes) + " B");
}

// Log-log between measured (size, us) points; outside them alpha-beta through the two nearest. `note` follows
// the source ("measured", "measured (scaled)", "measured (extrapolated)").
CommCost interpolate(const std::vector<std::pair<double, double>>& v, std::int64_t bytes, const std::string& op,
                     const std::vector<int>& ranks, const std::string& note = "") {
  const auto ns = [&](double us) { return pipebench::ns(us, op, ranks, bytes); };
  const double x = static_cast<double>(bytes);
  if (v.size() == 1) return {ns(v[0].second * (x > v[0].first ? x / v[0].first : 1.0)), "measured (scaled)" + note};
  // Log-log interpolation inside the measured range.
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    if (x >= v[i].first && x <= v[i + 1].first) {
      if (v[i + 1].first == v[i].first) return {ns(v[i].second), "measured" + note};
      const double f = std::log(x / v[i].first) / std::log(v[i + 1].first / v[i].first);
      return {ns(std::exp(std::log(v[i].second) + f * std::log(v[i + 1].second / v[i].second))), "measured" + note};
    }
  }
  // Alpha-beta through the two nearest points: t = alpha + x / beta.
  const bool above = x > v.back().first;
  const auto& a = above ? v[v.size() - 2] : v[0];
  const auto& b = above ? v.back() : v[1];
  const double slope = (b.second - a.second) / (b.first - a.first);
  const double alpha = a.second - slope * a.first;
  return {ns(std::max(0.0, alpha + std::max(slope, 0.0) * x)), "measured (extrapolated)" + note};
}

// The class of a group as the cost models key it: a rank alone is X even where the table does not place
// it (a one-rank group moves nothing over a link); "" when a pair is unknown.
std::optional<LinkClass> group_class(const Placement& placement, const std::vector<int>& ranks) {
  return worst_link_class(ranks, [&placement](int a, int b) {
    return a == b ? std::optional<LinkClass>(LinkClass{}) : placement.pair_class(a, b);
  });
}

}  // namespace

CommCost AssumedCost::cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const {
  double gbps = gbps_, latency = latency_us_;
  std::string source = "assumed";
  if (const std::optional<LinkClass> cls = per_class_.empty() ? std::nullopt : group_class(placement_, ranks)) {
    for (const auto& [link_class, link] : per_class_) {
      if (!(link_class == *cls)) continue;
      gbps = link.first;
      latency = link.second;
      source = "assumed (" + cls->label() + ")";
    }
  }
  const double factor = link_bytes_factor(op, ranks.size());
  const double us = (ranks.size() <= 1 && !op.traits().is_transfer ? 0 : latency) +
                    static_cast<double>(bytes) * factor / (gbps * kBytesPerGB) * kUsPerSecond;
  return {ns(us, std::string(op.name()), ranks, bytes), source};
}

MeasuredCost::MeasuredCost(const std::vector<ResultRecord>& records, Placement placement, const std::string& path)
    : path_(path), placement_(std::move(placement)) {
  // A collective's curve is the placement Megatron issues it in (OpTraits::megatron_in_place), as
  // bench --plan times it; a table with only the other placement (a sweep of out-of-place points, an
  // older bench --plan) is used as it is. On one rank the two differ most: in place moves nothing.
  decltype(points_) other;
  std::vector<ResultRecord> together_other;
  for (const auto& r : records) {
    if (!r.error.empty() || r.time_us <= 0 || r.size_bytes == 0) continue;
    if (!ran_alone(r)) {
      (r.in_place == OpRegistry::instance().traits(r.op).megatron_in_place ? together_ : together_other).push_back(r);
      continue;
    }
    std::vector<int> ranks = r.ranks;
    std::string op = r.op;
    // Pipeline neighbours send both ways at once (1F1B's batched calls, interleaved's overlap): the
    // bidirectional figure is what their transfers see; one-way records are kept apart as a fallback.
    if (OpRegistry::instance().traits(op).is_transfer && !r.bidirectional) op = one_way(op);
    std::sort(ranks.begin(), ranks.end());
    auto& curves = r.in_place == OpRegistry::instance().traits(r.op).megatron_in_place ? points_ : other;
    curves[{op, ranks}].emplace_back(static_cast<double>(r.size_bytes), r.time_us);
    add_batch_record(r);
  }
  for (auto& [key, v] : other) points_.try_emplace(key, std::move(v));
  if (together_.empty()) together_ = std::move(together_other);
  for (auto& [key, v] : batches_) std::sort(v.begin(), v.end());
  if (points_.empty()) {
    throw ModelError(ModelError::Input::kNoMeasuredRecord, path + ": no measured record to predict from",
                     "no measured record to predict from");
  }
  for (auto& [key, v] : points_) std::sort(v.begin(), v.end());
}

std::string describe_sharing(const Sharing& s) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%d groups of %d rank%s ran %s of %lld bytes at once %.2fx slower than alone (%.1f vs %.1f us): a "
                "resource of %.2f at full speed",
                s.groups, s.group_size, s.group_size == 1 ? "" : "s", s.op.c_str(), static_cast<long long>(s.bytes),
                s.slowdown, s.together_us, s.alone_us, s.capacity());
  return buf;
}

std::optional<Sharing> MeasuredCost::sharing(const Op& op, int group_size, std::int64_t bytes) const {
  const ResultRecord* best = nullptr;
  int best_key = -1;
  double best_distance = 0;
  for (std::size_t i = 0; i < together_.size(); ++i) {
    const ResultRecord& r = together_[i];
    if (r.op != op.name() || r.at_once.size() < 2 || static_cast<int>(r.at_once.front().size()) != group_size) continue;
    const double distance = std::abs(std::log(static_cast<double>(r.size_bytes) / static_cast<double>(bytes)));
    if (!best || distance < best_distance) {
      best = &r;
      best_key = static_cast<int>(i);
      best_distance = distance;
    }
  }
  if (!best) return std::nullopt;
  Sharing s;
  s.op = op.name();
  s.group_size = group_size;
  s.groups = static_cast<int>(best->at_once.size());
  s.bytes = static_cast<std::int64_t>(best->size_bytes);
  s.together_us = best->time_us;
  s.key = best_key;
  for (const auto& g : best->at_once) {
    std::vector<int> sorted = g;
    std::sort(sorted.begin(), sorted.end());
    try {
      s.alone_us = std::max(s.alone_us, static_cast<double>(cost(op, sorted, s.bytes).time) / 1e3);
    } catch (const UsageError&) {
      return std::nullopt;  // a group without its own measurement: nothing to compare with
    }
  }
  if (!(s.alone_us > 0)) return std::nullopt;
  s.slowdown = s.together_us / s.alone_us;
  return s;
}

// A record of the transfer op as the transfers it timed at once, in global ranks (its pairs are ranks of
// its communicator; with bidirectional every pair also ran the reverse way).
void MeasuredCost::add_batch_record(const ResultRecord& r) {
  if (!OpRegistry::instance().traits(r.op).is_transfer || r.pairs.empty()) return;
  std::vector<std::pair<int, int>> t;
  const auto global = [&r](int local) { return r.ranks.at(static_cast<std::size_t>(local)); };
  for (const auto& p : r.pairs) {
    if (p.src < 0 || p.dst < 0 || static_cast<std::size_t>(std::max(p.src, p.dst)) >= r.ranks.size()) return;
    t.emplace_back(global(p.src), global(p.dst));
    if (r.bidirectional) t.emplace_back(global(p.dst), global(p.src));
  }
  std::sort(t.begin(), t.end());
  batches_[t].emplace_back(static_cast<double>(r.size_bytes), r.time_us);
}

std::optional<CommCost> MeasuredCost::batch_cost(const std::vector<RankPair>& transfers, std::int64_t bytes) const {
  std::vector<std::pair<int, int>> t;
  std::vector<int> ranks;
  for (const auto& x : transfers) {
    t.emplace_back(x.src, x.dst);
    ranks.push_back(x.src);
    ranks.push_back(x.dst);
  }
  std::sort(t.begin(), t.end());
  const auto it = batches_.find(t);
  if (it == batches_.end()) return std::nullopt;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return interpolate(it->second, bytes, std::string(OpRegistry::instance().transfer_op().name()), ranks, " (batch)");
}

CommCost MeasuredCost::cost(const Op& known, const std::vector<int>& ranks, std::int64_t bytes) const {
  const std::string op(known.name());
  const bool transfer = known.traits().is_transfer;
  auto it = points_.find({op, ranks});
  if (it == points_.end() && transfer) {
    it = points_.find({one_way(op), ranks});
    if (it != points_.end()) return interpolate(it->second, bytes, op, ranks, " (one-way figure)");
  }
  if (it != points_.end()) return interpolate(it->second, bytes, op, ranks);
  if (transfer && ranks.size() == 2) {
    // A pair measured only inside batches (interleaved's wrap-around edge goes out with another pair's
    // transfer): the smallest batch that carries it.
    const std::vector<std::pair<int, int>>* best = nullptr;
    for (const auto& [t, v] : batches_) {
      const bool carries = std::any_of(t.begin(), t.end(), [&](const std::pair<int, int>& x) {
        return std::min(x.first, x.second) == ranks[0] && std::max(x.first, x.second) == ranks[1];
      });
      if (carries && (!best || t.size() < best->size())) best = &t;
    }
    if (best)
      return interpolate(batches_.at(*best), bytes, op, ranks,
                         " (from a batch of " + std::to_string(best->size()) + ")");
  }
  const std::optional<LinkClass> cls = group_class(placement_, ranks);
  if (fallback_ && cls) {
    for (const auto& [key, v] : points_) {
      if (key.first == op && key.second.size() == ranks.size() && group_class(placement_, key.second) == cls)
        return interpolate(v, bytes, op, ranks, " (class " + cls->label() + " fallback)");
    }
  }
  const std::string missing =
      "no measurement of " + describe(op, ranks) + (cls ? " (class " + cls->label() + ")" : std::string());
  throw ModelError(ModelError::Input::kNoMeasurement, path_ + ": " + missing, missing, fallback_);
}

namespace {

// The table that stands for the machine, in order of preference: all_reduce is what users run and
// moves the most bytes per rank; sendrecv last (its busbw is one link's, factor 1).
const std::vector<std::string>& reference_preference() {
  static const std::vector<std::string> order = {"all_reduce", "reduce_scatter", "all_gather", "alltoall", "broadcast",
                                                 "reduce",     "gather",         "scatter",    "sendrecv"};
  return order;
}

bool usable(const ResultRecord& r) {
  return r.error.empty() && !r.in_place && r.size_bytes > 0 && r.time_us > 0 && std::isfinite(r.time_us) &&
         std::isfinite(r.busbw_gbps);
}

}  // namespace

NcclTestsCost::NcclTestsCost(const std::vector<ResultRecord>& records, const std::string& path) {
  for (const auto& pref : reference_preference()) {
    for (const auto& r : records) {
      if (usable(r) && r.op == pref && r.busbw_gbps > 0 && r.nranks > reference_nranks_) reference_nranks_ = r.nranks;
    }
    if (reference_nranks_ > 1) {
      reference_op_ = pref;
      break;
    }
    reference_nranks_ = 0;
  }
  if (reference_op_.empty()) {
    throw ModelError(ModelError::Input::kNoMeasuredRecord,
                     path + ": no nccl-tests table of 2 or more ranks with a bus bandwidth to derive costs from",
                     "no nccl-tests table with a bus bandwidth");
  }
  std::vector<std::pair<double, double>> latency;
  for (const auto& r : records) {
    if (!usable(r)) continue;
    std::vector<int> ranks = r.ranks;
    std::sort(ranks.begin(), ranks.end());
    measured_[{r.op, ranks}].emplace_back(static_cast<double>(r.size_bytes), r.time_us);
    if (r.op == "sendrecv") sendrecv_.emplace_back(static_cast<double>(r.size_bytes), r.time_us);
    if (r.op != reference_op_ || r.nranks != reference_nranks_) continue;
    latency.emplace_back(static_cast<double>(r.size_bytes), r.time_us);
    if (r.busbw_gbps > 0) busbw_.emplace_back(static_cast<double>(r.size_bytes), r.busbw_gbps);
  }
  for (auto* v : {&latency, &busbw_, &sendrecv_}) std::sort(v->begin(), v->end());
  for (auto& [key, v] : measured_) std::sort(v.begin(), v.end());
  latency_us_ = latency.front().second;  // the fastest row at the smallest size
  latency_size_bytes_ = latency.front().first;
}

double NcclTestsCost::busbw_gbps(double bytes) const {
  if (bytes <= busbw_.front().first) return busbw_.front().second;
  if (bytes >= busbw_.back().first) return busbw_.back().second;
  const auto hi = std::lower_bound(busbw_.begin(), busbw_.end(), std::make_pair(bytes, 0.0));
  const auto lo = hi - 1;
  if (hi->first == lo->first) return hi->second;
  const double f = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
  return lo->second + f * (hi->second - lo->second);
}

CommCost NcclTestsCost::cost(const Op& known, const std::vector<int>& ranks, std::int64_t bytes) const {
  const std::string op(known.name());
  const std::string derived = "derived from nccl-tests " + reference_op_;
  const bool transfer = known.traits().is_transfer;
  if (transfer) {
    if (!sendrecv_.empty()) {
      CommCost c = interpolate(sendrecv_, bytes, op, ranks);
      c.source = "nccl-tests sendrecv" + std::string(c.source == "measured" ? "" : " (" + c.source + ")");
      return c;
    }
  } else {
    const auto it = measured_.find({op, ranks});
    if (it != measured_.end()) {
      CommCost c = interpolate(it->second, bytes, op, ranks);
      const std::string how = c.source == "measured" ? "" : ", " + c.source.substr(c.source.find('(') + 1);
      c.source = "measured (nccl-tests " + op + (how.empty() ? ")" : how);
      return c;
    }
  }
  const double factor = link_bytes_factor(known, ranks.size());
  if (!transfer && ranks.size() <= 1) return {0, derived};
  const double b = static_cast<double>(std::max<std::int64_t>(bytes, 0));
  const double us = latency_us_ + b * factor / (busbw_gbps(std::max(b, 1.0)) * kBytesPerGB) * kUsPerSecond;
  return {ns(us, op, ranks, bytes), derived};
}

}  // namespace pipebench
