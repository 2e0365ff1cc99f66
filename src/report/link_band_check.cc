// SPDX-License-Identifier: Apache-2.0
// Points against their link class's published band.
#include "report/link_band_check.h"

#include <algorithm>

#include "collectives/registry.h"
#include "core/printf_string.h"
#include "core/units.h"
#include "io/input_views.h"
#include "report/metric.h"
#include "report/rule_engine.h"
#include "topology/link_band.h"

namespace pipebench {
namespace {

const TopologyFile* topology_of(const ReportInputs& inputs, const InputFile<ResultSet>& in) {
  if (in.doc.system.topology) return &*in.doc.system.topology;
  const std::string host = host_of(in);
  for (const auto& t : inputs.topologies) {
    if (t.doc.host == host || t.doc.host.empty()) return &t.doc;
  }
  return nullptr;
}

// "ranks 0,1 (0000:07:00.0, 0000:0a:00.0)": which GPUs the slow path joins.
std::string ranks_text(const ResultSet& rs, const std::vector<int>& ranks) {
  std::string ids, list;
  for (const int rank : ranks) {
    list += (list.empty() ? "" : ",") + std::to_string(rank);
    const DevicePlace* d = device_of_rank(rs, rank);
    ids += (ids.empty() ? "" : ", ") + (d != nullptr && !d->bus_id.empty() ? d->bus_id : std::string("?"));
  }
  return "ranks " + list + " (" + ids + ")";
}

}  // namespace

std::optional<RuleOutcome> link_band_outcome(const ReportInputs& inputs) {
  RuleOutcome out = new_outcome("busbw-in-link-band", "busbw_gbps", "within_link_band", Status::kWarn);
  std::size_t below = 0;
  for (const auto& in : inputs.results) {
    const TopologyFile* topo = topology_of(inputs, in);
    const std::string host = host_of(in);
    for (const auto& r : in.doc.records) {
      if (!r.error.empty() || !is_measurement(r)) continue;
      const auto link = narrowest_link_gbps(in.doc, topo, r);
      const auto band = check_band(r.link_class, OpRegistry::instance().traits(r.op).nvswitch_reduces, link,
                                   r.busbw_gbps, r.size_bytes);
      if (!band || !band->judged) continue;
      PointOutcome p = point_of(host, r);
      p.value = r.busbw_gbps;
      p.limit = band->low_gbps;
      ++out.checked;
      p.status = band->below ? Status::kWarn : Status::kPass;
      below += band->below ? 1 : 0;
      p.note = printf_string("%.2f GB/s at %s is %.1f %% of %s's %.2f GB/s; ", r.busbw_gbps,
                             format_size(r.size_bytes).c_str(), band->pct_of_link, r.link_class.c_str(), *link) +
               band->band_text + "; host " + host + " " + ranks_text(in.doc, r.ranks);
      out.status = std::max(out.status, p.status);
      out.points.push_back(std::move(p));
    }
  }
  if (out.checked == 0) return std::nullopt;
  out.message = std::to_string(below) + " of " + std::to_string(out.checked) +
                " points at >= 1 GiB below the published band of their link class";
  return out;
}

}  // namespace pipebench
