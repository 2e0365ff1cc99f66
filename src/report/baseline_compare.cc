// SPDX-License-Identifier: Apache-2.0
#include "report/baseline_compare.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/units.h"
#include "io/input_views.h"

namespace pipebench {

namespace {

struct Side {
  const ResultRecord* record = nullptr;
  std::optional<double> value;
  std::string host;
};

std::set<std::string> hosts_in(const std::vector<InputFile<ResultSet>>& inputs) {
  std::set<std::string> hosts;
  for (const auto& in : inputs) hosts.insert(host_of(in));
  return hosts;
}

std::string point_key(const ResultRecord& r, const std::string& host) {
  std::ostringstream k;
  k << r.op << ' ' << r.dtype << ' ' << r.redop << ' ' << format_size(r.size_bytes) << (r.in_place ? " in-place" : "")
    << " n=" << r.nranks;
  if (r.root >= 0) k << " root=" << r.root;
  k << " ranks=";
  for (std::size_t i = 0; i < r.ranks.size(); ++i) k << (i ? "," : "") << r.ranks[i];
  for (const auto& p : r.pairs) k << ' ' << p.src << "->" << p.dst;
  if (!host.empty()) k << ' ' << host;
  return k.str();
}

std::map<std::string, Side> index_points(const std::vector<InputFile<ResultSet>>& inputs, const Metric& metric,
                                         bool by_host) {
  std::map<std::string, Side> out;
  for (const auto& in : inputs) {
    const std::string host = host_of(in);
    for (const auto& r : in.doc.records) {
      Side s{&r, record_metric(metric, r, std::nullopt), host};
      out[point_key(r, by_host ? host : std::string())] = s;
    }
  }
  return out;
}

}  // namespace

double metric_spread(double value, const ResultRecord& r) {
  if (!(r.stats.median_us > 0) || !(r.stats.stddev_us >= 0)) return 0;
  return std::fabs(value) * r.stats.stddev_us / r.stats.median_us;
}

std::vector<ComparedPoint> compare_to_baseline(const std::vector<InputFile<ResultSet>>& now,
                                               const std::vector<InputFile<ResultSet>>& baseline, const Metric& metric,
                                               double pct) {
  const bool by_host = hosts_in(now).size() > 1 || hosts_in(baseline).size() > 1;
  const auto now_points = index_points(now, metric, by_host);
  const auto old_points = index_points(baseline, metric, by_host);
  std::set<std::string> keys;
  for (const auto& [k, s] : now_points) keys.insert(k);
  for (const auto& [k, s] : old_points) keys.insert(k);
  std::vector<ComparedPoint> out;
  for (const auto& key : keys) {
    const auto n = now_points.find(key);
    const auto o = old_points.find(key);
    const Side& any = n != now_points.end() ? n->second : o->second;
    ComparedPoint c;
    c.key = key;
    c.host = any.host;
    c.op = any.record->op;
    c.size_bytes = any.record->size_bytes;
    if (n != now_points.end()) c.new_value = n->second.value;
    if (o != old_points.end()) c.old_value = o->second.value;
    if (c.new_value && c.old_value) {
      const double delta = *c.new_value - *c.old_value;
      c.ratio = *c.old_value != 0 ? *c.new_value / *c.old_value : 0;
      const double noise =
          metric_spread(*c.new_value, *n->second.record) + metric_spread(*c.old_value, *o->second.record);
      c.changed = std::fabs(delta) > pct / 100.0 * std::fabs(*c.old_value) && std::fabs(delta) > noise;
      c.worse = c.changed && (metric.higher_is_better ? delta < 0 : delta > 0);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pipebench
