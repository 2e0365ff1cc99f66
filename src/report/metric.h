// SPDX-License-Identifier: Apache-2.0
// Metric: a number a rule reads from a measured point. Any numeric field of a results record
// (results/README.md: `busbw_gbps`, `time_us`, `wrong`, `stats.p95_us`...), plus derived ones:
// `p95_over_median`, `fraction_of_link` (busbw / the narrowest theoretical link on the ranks' path),
// `failed` (1 when the point has an error) and `link_below_max` (a GPU link, not a record: 1 when
// its PCIe generation or width during the run was below the maximum).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/report_model.h"

namespace pipebench {

enum class MetricKind { kRecordField, kP95OverMedian, kFractionOfLink, kFailed, kLinkBelowMax };

struct Metric {
  std::string_view name;
  MetricKind kind;
  bool higher_is_better;
  double (*field)(const ResultRecord&);  // kRecordField only
};

// nullptr when `name` is no metric.
[[nodiscard]] const Metric* find_metric(std::string_view name);
// Every metric name, for error messages and the README.
[[nodiscard]] std::string metric_names();

// The metric of one record; nullopt when it has none (a failed point's timings, `wrong` unchecked,
// `fraction_of_link` without a known link, a zero median). link_gbps: the narrowest link of its ranks.
[[nodiscard]] std::optional<double> record_metric(const Metric& m, const ResultRecord& r,
                                                  std::optional<double> link_gbps);

// 1 when a GPU's link was not at its best during the run: PCIe below its maximum generation or width,
// an NVLink down at the end, or fewer NVLinks up at the end than at the start; 0 when not; nullopt
// when nothing is known. `l`: the GPU's PCIe link seen and its maximum, its NVLinks at the end
// (io/input_views.h: link_over_run, or links_at_discovery); nvlinks_up_start: -1 = unknown.
[[nodiscard]] std::optional<double> link_metric(const LinkStateEntry& l, int nvlinks_up_start);

// "GPU 1 0000:0b:00.0: PCIe Gen4 x16 of Gen5 x16 during the run; NVLinks 17 up, 1 down (18 up at start)".
[[nodiscard]] std::string describe_link(const LinkStateEntry& l, int nvlinks_up_start);

// The narrowest theoretical link (GB/s) on the paths between the record's ranks: the record's own
// path_min_gbps (written by the run that measured it), else from the topology of their machine; nullopt
// when the ranks span hosts, are fewer than 2, or a GPU is not in `topo`. `rs`: the file of the record.
[[nodiscard]] std::optional<double> narrowest_link_gbps(const ResultSet& rs, const TopologyFile* topo,
                                                        const ResultRecord& r);

}  // namespace pipebench
