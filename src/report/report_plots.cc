// SPDX-License-Identifier: Apache-2.0
#include "report/report_plots.h"

#include <algorithm>
#include <map>

#include "collectives/registry.h"
#include "core/printf_string.h"
#include "core/stats.h"
#include "core/units.h"
#include "io/input_views.h"
#include "report/charts.h"
#include "report/diagnosis.h"
#include "report/metric.h"
#include "report/rule_engine.h"

namespace pipebench {

namespace {

struct OpKey {
  std::string op, dtype;
  bool operator<(const OpKey& o) const { return std::tie(op, dtype) < std::tie(o.op, o.dtype); }
};

// host -> size -> values (several when a host has several records of the point)
using HostPoints = std::map<std::string, std::map<double, std::vector<double>>>;

// One kind of point of an op: the sweep's sizes, or the sizes of a plan's messages (bench --plan).
struct Lines {
  HostPoints busbw, algbw, time;
};

struct OpData {
  std::map<bool, Lines> lines;  // by "is a plan point": sweep and plan sizes are separate series
  int max_nranks = 0;
  bool busbw_nonzero = false;
  std::optional<double> link_gbps;  // the narrowest link over the op's records, where known
};

std::map<OpKey, OpData> collect(const ReportInputs& inputs) {
  std::map<OpKey, OpData> out;
  for (const auto& in : inputs.results) {
    const TopologyFile* topo = topology_for(inputs, in);
    const std::string host = host_of(in);
    for (const auto& r : in.doc.records) {
      // Out-of-place only (nccl-tests' first columns); pairs go to the heatmap.
      if (!r.error.empty() || r.in_place || OpRegistry::instance().traits(r.op).is_transfer || r.size_bytes == 0)
        continue;
      auto& d = out[{r.op, r.dtype}];
      auto& l = d.lines[!r.plan_ids.empty()];
      const double x = static_cast<double>(r.size_bytes);
      l.busbw[host][x].push_back(r.busbw_gbps);
      l.algbw[host][x].push_back(r.algbw_gbps);
      l.time[host][x].push_back(r.time_us);
      d.max_nranks = std::max(d.max_nranks, r.nranks);
      d.busbw_nonzero = d.busbw_nonzero || r.busbw_gbps != 0;
      if (const auto link = narrowest_link_gbps(in.doc, topo, r)) {
        d.link_gbps = d.link_gbps ? std::min(*d.link_gbps, *link) : *link;
      }
    }
  }
  return out;
}

std::vector<Series> series_of(const HostPoints& hp, bool lower_is_worse) {
  std::vector<Series> out;
  if (hp.size() <= kMaxHostLines) {
    for (const auto& [host, sizes] : hp) {
      Series s{host, {}};
      for (const auto& [x, ys] : sizes) s.points.emplace_back(x, median(ys));
      out.push_back(std::move(s));
    }
    return out;
  }
  std::map<double, std::vector<double>> by_size;
  for (const auto& [host, sizes] : hp) {
    for (const auto& [x, ys] : sizes) by_size[x].push_back(median(ys));
  }
  const std::string n = std::to_string(hp.size());
  Series med{"median of " + n + " hosts", {}}, worst{(lower_is_worse ? "min of " : "max of ") + n + " hosts", {}};
  for (const auto& [x, ys] : by_size) {
    med.points.emplace_back(x, median(ys));
    worst.points.emplace_back(
        x, lower_is_worse ? *std::min_element(ys.begin(), ys.end()) : *std::max_element(ys.begin(), ys.end()));
  }
  out.push_back(std::move(med));
  out.push_back(std::move(worst));
  return out;
}

// The series of one metric of an op: each kind of point (sweep, plan sizes) in series of its own, so that
// no line joins a sweep point to a plan point; labelled by kind where the op has both.
std::vector<Series> op_series(const OpData& d, HostPoints Lines::*metric, bool lower_is_worse) {
  std::vector<Series> out;
  for (const auto& [plan, l] : d.lines) {
    for (auto& s : series_of(l.*metric, lower_is_worse)) {
      if (d.lines.size() > 1) s.label += plan ? " (plan sizes)" : " (sweep)";
      out.push_back(std::move(s));
    }
  }
  return out;
}

void add_pair_heatmaps(const ReportInputs& inputs, std::vector<Plot>& plots) {
  for (const auto& in : inputs.results) {
    std::uint64_t largest = 0;
    int nranks = 0;
    for (const auto& r : in.doc.records) {
      if (OpRegistry::instance().traits(r.op).is_transfer && r.error.empty() && r.pairs.size() == 1)
        largest = std::max(largest, r.size_bytes);
      for (const int rank : r.ranks) nranks = std::max(nranks, rank + 1);
    }
    if (largest == 0 || nranks < 2 || nranks > 64) continue;
    Heatmap map;
    map.title = "pair bandwidth at " + format_size(largest) + ", " + host_of(in);
    map.unit = "GB/s";
    for (int i = 0; i < nranks; ++i) map.labels.push_back("r" + std::to_string(i));
    map.values.assign(nranks, std::vector<std::optional<double>>(nranks));
    map.limits = map.values;
    const TopologyFile* topo = topology_for(inputs, in);
    for (const auto& r : in.doc.records) {
      if (!OpRegistry::instance().traits(r.op).is_transfer || !r.error.empty() || r.size_bytes != largest ||
          r.pairs.size() != 1)
        continue;
      // A pair holds indices into the record's own ranks (bench --plan: ranks [2,3], pairs [[0,1]] is 2->3;
      // a sweep's ranks are 0..n-1, where both read alike): the cells are global ranks.
      const int src = r.pairs[0].src, dst = r.pairs[0].dst;
      if (src < 0 || dst < 0 || static_cast<std::size_t>(std::max(src, dst)) >= r.ranks.size()) continue;
      const int a = r.ranks[static_cast<std::size_t>(src)], b = r.ranks[static_cast<std::size_t>(dst)];
      if (a < 0 || b < 0 || a >= nranks || b >= nranks) continue;
      map.values[a][b] = r.busbw_gbps;
      map.limits[a][b] = narrowest_link_gbps(in.doc, topo, r);
    }
    plots.push_back({"pairs-" + std::to_string(plots.size()), map.title, heatmap_svg(map)});
    if (plots.size() > 64) break;  // a page of heatmaps at most; the JSON has every pair
  }
}

void add_schedule_bars(const ReportInputs& inputs, std::vector<Plot>& plots) {
  if (inputs.predictions.empty() && inputs.replays.empty()) return;
  BarChart chart;
  chart.title = "iteration time per schedule";
  chart.y_label = "iteration time (ms)";
  std::map<std::string, BarGroup> groups;
  std::vector<std::string> order;
  auto add = [&](const ScheduleId& id, double ms, const char* what) {
    const std::string label = id.label();
    if (groups.count(label) == 0) order.push_back(label);
    groups[label].label = label;
    groups[label].bars.emplace_back(what, ms);
  };
  for (const auto& p : inputs.predictions) {
    for (const auto& s : p.doc.schedules) add(s.id, p.doc.compared_ms(s), "predicted");
  }
  for (const auto& r : inputs.replays) {
    for (const auto& s : r.doc.schedules) add(s.id, s.median_ms, "replayed");
  }
  for (const auto& label : order) chart.groups.push_back(groups[label]);
  std::string note = "schedule";
  for (const auto& p : inputs.predictions) {
    for (const auto& [v, gbps] : p.doc.break_even_gbps) {
      note +=
          gbps ? printf_string("; break-even v=%d: %.1f GB/s", v, *gbps) : printf_string("; break-even v=%d: none", v);
    }
  }
  chart.note = note;
  plots.push_back({"schedules", chart.title, bar_chart_svg(chart)});
}

}  // namespace

std::vector<Plot> build_plots(const ReportInputs& inputs) {
  std::vector<Plot> plots;
  for (const auto& [key, d] : collect(inputs)) {
    // One rank moves nothing between ranks: busbw = algbw x 2(n-1)/n or (n-1)/n is 0 at n = 1 (nccl-tests,
    // doc/PERFORMANCE.md), so its plot would be a flat zero; algbw still tells the op's speed. (Broadcast,
    // reduce and sendrecv have the factor 1: their busbw is not 0 and keeps its plot.)
    const bool one_rank = d.max_nranks == 1 && !d.busbw_nonzero;
    const std::string bw_name = one_rank ? "algbw" : "busbw";
    LineChart bw;
    bw.title =
        bw_name + " vs size: " + key.op + " " + key.dtype + (one_rank ? " (1 rank: busbw is 0 by definition)" : "");
    bw.y_label = bw_name + " (GB/s)";
    bw.series = op_series(d, one_rank ? &Lines::algbw : &Lines::busbw, true);
    if (d.link_gbps && !one_rank) {
      bw.reference_y = *d.link_gbps;
      bw.reference_label = printf_string("narrowest link %.1f GB/s", *d.link_gbps);
    }
    plots.push_back({bw_name + "-" + key.op + "-" + key.dtype, bw.title, line_chart_svg(bw)});
    LineChart lat;
    lat.title = "latency vs size: " + key.op + " " + key.dtype;
    lat.y_label = "time (us, log10 scale)";
    lat.log_y = true;
    lat.series = op_series(d, &Lines::time, false);
    plots.push_back({"latency-" + key.op + "-" + key.dtype, lat.title, line_chart_svg(lat)});
  }
  add_pair_heatmaps(inputs, plots);
  add_schedule_bars(inputs, plots);
  return plots;
}

}  // namespace pipebench
