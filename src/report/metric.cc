// SPDX-License-Identifier: Apache-2.0
#include "report/metric.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "io/input_views.h"
#include "topology/link_bandwidth.h"
#include "topology/topology.h"

namespace pipebench {

namespace {

double f_nranks(const ResultRecord& r) { return r.nranks; }
double f_root(const ResultRecord& r) { return r.root; }
double f_size(const ResultRecord& r) { return static_cast<double>(r.size_bytes); }
double f_count(const ResultRecord& r) { return static_cast<double>(r.count); }
double f_time(const ResultRecord& r) { return r.time_us; }
double f_algbw(const ResultRecord& r) { return r.algbw_gbps; }
double f_busbw(const ResultRecord& r) { return r.busbw_gbps; }
double f_wrong(const ResultRecord& r) { return static_cast<double>(r.wrong); }
double f_samples(const ResultRecord& r) { return static_cast<double>(r.stats.samples); }
double f_min(const ResultRecord& r) { return r.stats.min_us; }
double f_median(const ResultRecord& r) { return r.stats.median_us; }
double f_mean(const ResultRecord& r) { return r.stats.mean_us; }
double f_p95(const ResultRecord& r) { return r.stats.p95_us; }
double f_max(const ResultRecord& r) { return r.stats.max_us; }
double f_stddev(const ResultRecord& r) { return r.stats.stddev_us; }
double f_ops(const ResultRecord& r) { return r.ops_per_batch; }
double f_warmup(const ResultRecord& r) { return r.warmup; }

// The numeric fields of a record as results/README.md names them.
constexpr std::array<Metric, 21> kMetrics{{
    {"nranks", MetricKind::kRecordField, true, f_nranks},
    {"root", MetricKind::kRecordField, true, f_root},
    {"size_bytes", MetricKind::kRecordField, true, f_size},
    {"count", MetricKind::kRecordField, true, f_count},
    {"time_us", MetricKind::kRecordField, false, f_time},
    {"algbw_gbps", MetricKind::kRecordField, true, f_algbw},
    {"busbw_gbps", MetricKind::kRecordField, true, f_busbw},
    {"wrong", MetricKind::kRecordField, false, f_wrong},
    {"stats.samples", MetricKind::kRecordField, true, f_samples},
    {"stats.min_us", MetricKind::kRecordField, false, f_min},
    {"stats.median_us", MetricKind::kRecordField, false, f_median},
    {"stats.mean_us", MetricKind::kRecordField, false, f_mean},
    {"stats.p95_us", MetricKind::kRecordField, false, f_p95},
    {"stats.max_us", MetricKind::kRecordField, false, f_max},
    {"stats.stddev_us", MetricKind::kRecordField, false, f_stddev},
    {"ops_per_batch", MetricKind::kRecordField, true, f_ops},
    {"warmup", MetricKind::kRecordField, true, f_warmup},
    {"p95_over_median", MetricKind::kP95OverMedian, false, nullptr},
    {"fraction_of_link", MetricKind::kFractionOfLink, true, nullptr},
    {"failed", MetricKind::kFailed, false, nullptr},
    {"link_below_max", MetricKind::kLinkBelowMax, false, nullptr},
}};

bool is_timing(const Metric& m) {
  return m.kind == MetricKind::kP95OverMedian || m.kind == MetricKind::kFractionOfLink ||
         (m.kind == MetricKind::kRecordField && m.name != "nranks" && m.name != "root" && m.name != "size_bytes" &&
          m.name != "count" && m.name != "wrong");
}

}  // namespace

const Metric* find_metric(std::string_view name) {
  for (const auto& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string metric_names() {
  std::string out;
  for (const auto& m : kMetrics) {
    if (!out.empty()) out += ", ";
    out += m.name;
  }
  return out;
}

std::optional<double> record_metric(const Metric& m, const ResultRecord& r, std::optional<double> link_gbps) {
  if (m.kind == MetricKind::kFailed) return r.error.empty() ? 0.0 : 1.0;
  if (m.kind == MetricKind::kLinkBelowMax) return std::nullopt;
  if (!r.error.empty() && is_timing(m)) return std::nullopt;  // a failed point's timings are 0, not values
  std::optional<double> v;
  switch (m.kind) {
    case MetricKind::kRecordField:
      if (m.name == "wrong" && r.wrong < 0) return std::nullopt;  // not checked
      v = m.field(r);
      break;
    case MetricKind::kP95OverMedian:
      if (r.stats.median_us > 0) v = r.stats.p95_us / r.stats.median_us;
      break;
    case MetricKind::kFractionOfLink:
      if (link_gbps && *link_gbps > 0) v = r.busbw_gbps / *link_gbps;
      break;
    default:
      break;
  }
  if (v && !std::isfinite(*v)) return std::nullopt;
  return v;
}

std::optional<double> link_metric(const LinkStateEntry& l, int nvlinks_up_start) {
  const bool pcie_known = l.pcie_gen > 0 && l.pcie_width > 0 && l.pcie_gen_max > 0 && l.pcie_width_max > 0;
  const bool nvlink_known = l.nvlinks_down >= 0 || (nvlinks_up_start >= 0 && l.nvlinks_up >= 0);
  if (!pcie_known && !nvlink_known) return std::nullopt;
  const bool pcie_low = pcie_known && (l.pcie_gen < l.pcie_gen_max || l.pcie_width < l.pcie_width_max);
  const bool nvlink_down =
      l.nvlinks_down > 0 || (nvlinks_up_start >= 0 && l.nvlinks_up >= 0 && l.nvlinks_up < nvlinks_up_start);
  return pcie_low || nvlink_down ? 1.0 : 0.0;
}

std::string describe_link(const LinkStateEntry& l, int nvlinks_up_start) {
  std::string s = "GPU " + std::to_string(l.gpu) + (l.bus_id.empty() ? "" : " " + l.bus_id) + ":";
  if (l.pcie_gen > 0 || l.pcie_width > 0 || l.pcie_gen_max > 0) {
    s += " PCIe " + pcie_label(l.pcie_gen, l.pcie_width) + " of " + pcie_label(l.pcie_gen_max, l.pcie_width_max);
  }
  if (l.nvlinks_up >= 0 || l.nvlinks_down >= 0) {
    s += (s.back() == ':' ? " " : "; ") + std::string("NVLinks ") + std::to_string(std::max(l.nvlinks_up, 0)) +
         " up, " + std::to_string(std::max(l.nvlinks_down, 0)) + " down";
    if (nvlinks_up_start >= 0) s += " (" + std::to_string(nvlinks_up_start) + " up at start)";
  }
  return s;
}

std::optional<double> narrowest_link_gbps(const ResultSet& rs, const TopologyFile* topo, const ResultRecord& r) {
  if (r.path_min_gbps && *r.path_min_gbps > 0) return r.path_min_gbps;
  if (topo == nullptr || r.ranks.size() < 2) return std::nullopt;
  std::vector<int> gpus;
  for (const int rank : r.ranks) {
    const DevicePlace* d = device_of_rank(rs, rank);
    if (d == nullptr) return std::nullopt;
    // A topology without a host name (an XML export) belongs to the host it is reported with.
    if (!d->host.empty() && !topo->host.empty() && d->host != topo->host) {
      return std::nullopt;  // across hosts the path leaves the machine (NET)
    }
    const std::string id = normalize_bus_id(d->bus_id);
    const auto gpu = id.empty() ? std::nullopt : gpu_of_bus(*topo, id);
    if (!gpu) return std::nullopt;
    gpus.push_back(*gpu);
  }
  // The known links among these GPUs in one pass over the file's pairs (a pair listed twice: the later one).
  const std::set<int> members(gpus.begin(), gpus.end());
  std::map<std::pair<int, int>, double> path_min_gbps;
  for (const auto& p : topo->gpu_pairs) {
    if (p.path_min_gbps > 0 && members.count(p.a) > 0 && members.count(p.b) > 0) {
      path_min_gbps[std::minmax(p.a, p.b)] = p.path_min_gbps;
    }
  }
  std::optional<double> narrowest;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      if (gpus[i] == gpus[j]) continue;
      const auto it = path_min_gbps.find(std::minmax(gpus[i], gpus[j]));
      if (it == path_min_gbps.end()) return std::nullopt;
      narrowest = narrowest ? std::min(*narrowest, it->second) : it->second;
    }
  }
  return narrowest;
}

}  // namespace pipebench
