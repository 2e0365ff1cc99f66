// SPDX-License-Identifier: Apache-2.0
// Fleet baseline: build and compare.
#include "report/fleet_baseline.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/printf_string.h"
#include "core/stats.h"
#include "core/units.h"
#include "io/input_views.h"
#include "report/diagnosis.h"
#include "report/rule_engine.h"

namespace pipebench {
namespace {

std::string version_of(const ResultSet& rs, const char* key) {
  const auto it = rs.system.versions.find(key);
  return it == rs.system.versions.end() ? std::string() : it->second;
}

std::string describe(const FleetPoint& p) {
  std::string s = p.op + " " + p.dtype + (p.redop == "none" ? "" : " " + p.redop) + " " + format_size(p.size_bytes) +
                  (p.in_place ? " in-place" : "") + " n=" + std::to_string(p.nranks);
  if (!p.link_class.empty()) s += " " + p.link_class;
  if (!p.gpu_model.empty()) s += " " + p.gpu_model;
  return s;
}

// 1.4826 x MAD estimates the standard deviation of normally distributed values (Rousseeuw & Croux 1993).
double scaled_mad(const std::vector<double>& values, double center) {
  std::vector<double> dev;
  for (double v : values) dev.push_back(std::fabs(v - center));
  return 1.4826 * median(dev);
}

// The fingerprint of a record of results file `rs` as a baseline point (no statistics filled in): op, dtype, redop,
// placement, size, rank count, link class, the first GPU model and the NCCL and CUDA driver versions.
FleetPoint fleet_key(const ResultSet& rs, const ResultRecord& r) {
  FleetPoint p;
  p.op = r.op;
  p.dtype = r.dtype;
  p.redop = r.redop;
  p.in_place = r.in_place;
  p.size_bytes = r.size_bytes;
  p.nranks = r.nranks;
  p.link_class = r.link_class;
  p.gpu_model = rs.system.gpu_models.empty() ? std::string() : rs.system.gpu_models.front();
  p.nccl = version_of(rs, "nccl");
  p.driver = version_of(rs, "cuda_driver");
  return p;
}

bool same_key(const FleetPoint& a, const FleetPoint& b) {
  return a.op == b.op && a.dtype == b.dtype && a.redop == b.redop && a.in_place == b.in_place &&
         a.size_bytes == b.size_bytes && a.nranks == b.nranks && a.link_class == b.link_class &&
         a.gpu_model == b.gpu_model && a.nccl == b.nccl && a.driver == b.driver;
}

}  // namespace

FleetBaseline make_fleet_baseline(const std::vector<InputFile<ResultSet>>& results) {
  std::vector<FleetPoint> keys;
  std::vector<std::vector<double>> values;
  for (const auto& in : results) {
    for (const auto& r : in.doc.records) {
      if (!r.error.empty() || !is_measurement(r) || !std::isfinite(r.busbw_gbps)) continue;
      const FleetPoint k = fleet_key(in.doc, r);
      const auto it = std::find_if(keys.begin(), keys.end(), [&](const FleetPoint& o) { return same_key(o, k); });
      if (it == keys.end()) {
        keys.push_back(k);
        values.push_back({r.busbw_gbps});
      } else {
        values[static_cast<std::size_t>(it - keys.begin())].push_back(r.busbw_gbps);
      }
    }
  }
  if (keys.empty()) throw UsageError("--make-baseline: the results hold no measured point");
  FleetBaseline out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    FleetPoint p = keys[i];
    const auto& v = values[i];
    p.median_gbps = median(v);
    p.spread_gbps = scaled_mad(v, p.median_gbps);
    p.min_gbps = *std::min_element(v.begin(), v.end());
    p.max_gbps = *std::max_element(v.begin(), v.end());
    p.samples = static_cast<int>(v.size());
    out.points.push_back(std::move(p));
  }
  return out;
}

RuleOutcome check_fleet_baseline(const std::vector<InputFile<ResultSet>>& results, const FleetBaseline& fleet,
                                 double k) {
  RuleOutcome out = new_outcome("fleet-baseline", "busbw_gbps", "within_fleet_band", Status::kFail);
  std::size_t below = 0;
  for (const auto& in : results) {
    const std::string host = host_of(in);
    for (const auto& r : in.doc.records) {
      if (!r.error.empty() || !is_measurement(r)) continue;
      const FleetPoint key = fleet_key(in.doc, r);
      const auto it =
          std::find_if(fleet.points.begin(), fleet.points.end(), [&](const FleetPoint& o) { return same_key(o, key); });
      PointOutcome p = point_of(host, r);
      p.value = r.busbw_gbps;
      ++out.checked;
      if (it == fleet.points.end()) {
        p.status = Status::kWarn;
        p.note = "not in the baseline: " + describe(key);
      } else {
        const double limit = std::min(it->median_gbps - k * it->spread_gbps, 0.95 * it->median_gbps);
        p.limit = limit;
        const bool bad = r.busbw_gbps < limit;
        p.status = bad ? Status::kFail : Status::kPass;
        below += bad ? 1 : 0;
        p.note = printf_string("%.2f GB/s against the fleet's median %.2f (spread %.2f, %d samples, band from %.2f): ",
                               r.busbw_gbps, it->median_gbps, it->spread_gbps, it->samples, limit) +
                 describe(key) + " on host " + host;
      }
      out.status = std::max(out.status, p.status);
      out.points.push_back(std::move(p));
    }
  }
  out.message =
      fleet.path + printf_string(": %zu of %zu points below the fleet's band (median - %g x spread, and 5 %% below it)",
                                 below, out.checked, k);
  return out;
}

}  // namespace pipebench
