// SPDX-License-Identifier: Apache-2.0
#include "report/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/stats.h"
#include "core/units.h"
#include "io/input_views.h"

namespace pipebench {

namespace {

std::string point_key(const ResultRecord& r) {
  std::ostringstream k;
  k << r.op << ' ' << r.dtype << ' ' << r.redop << ' ' << r.size_bytes << ' ' << r.in_place << ' ' << r.nranks << ' '
    << r.root << ' ' << r.graph;
  return k.str();
}

std::string member_name(const InputFile<ResultSet>& in, const ResultRecord& r) {
  std::string m = host_of(in);
  for (const auto& p : r.pairs) m += " " + std::to_string(p.src) + "->" + std::to_string(p.dst);
  return m;
}

struct Member {
  const InputFile<ResultSet>* input;
  const ResultRecord* record;
  double value;
};

void judge_group(const Metric& metric, double k, const std::vector<Member>& group, std::vector<MadFinding>& out) {
  std::vector<double> peers;
  peers.reserve(group.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    peers.clear();
    for (std::size_t j = 0; j < group.size(); ++j) {
      if (j != i) peers.push_back(group[j].value);
    }
    MadFinding f;
    f.input = group[i].input;
    f.record = group[i].record;
    f.member = member_name(*f.input, *f.record);
    f.value = group[i].value;
    f.peers_median = median(peers);
    for (double& p : peers) p = std::fabs(p - f.peers_median);
    f.mad = std::max(median(peers), 0.01 * std::fabs(f.peers_median));
    const double bad_side = metric.higher_is_better ? f.peers_median - f.value : f.value - f.peers_median;
    f.deviations = f.mad > 0 ? bad_side / f.mad : 0.0;
    f.outlier = f.mad > 0 && f.deviations > k;
    out.push_back(f);
  }
}

}  // namespace

std::vector<MadFinding> mad_outliers(const std::vector<InputFile<ResultSet>>& inputs, const Metric& metric, double k,
                                     const std::function<bool(const ResultRecord&)>& keep) {
  std::map<std::string, std::vector<Member>> groups;
  for (const auto& in : inputs) {
    for (const auto& r : in.doc.records) {
      if (!keep(r)) continue;
      // Node diagnosis compares measured values; a link's width needs its topology, so none here.
      const auto v = record_metric(metric, r, std::nullopt);
      if (v) groups[point_key(r)].push_back({&in, &r, *v});
    }
  }
  std::vector<MadFinding> out;
  for (const auto& [key, group] : groups) {
    if (group.size() >= 3) judge_group(metric, k, group, out);
  }
  return out;
}

std::vector<HostDiagnosis> diagnose_hosts(const std::vector<MadFinding>& findings) {
  std::map<std::string, HostDiagnosis> rows;
  for (const auto& f : findings) {
    const std::string host = host_of(*f.input);
    auto& row = rows[host];
    row.host = host;
    ++row.points;
    if (f.outlier) ++row.outliers;
    if (f.deviations > row.worst_mads) {
      row.worst_mads = f.deviations;
      std::ostringstream p;
      p << f.record->op << ' ' << f.record->dtype << ' ' << format_size(f.record->size_bytes);
      row.worst_point = p.str();
    }
  }
  std::vector<HostDiagnosis> out;
  for (auto& [host, row] : rows) out.push_back(std::move(row));
  // Flagged hosts first, the worst first.
  std::stable_sort(out.begin(), out.end(), [](const HostDiagnosis& a, const HostDiagnosis& b) {
    if ((a.outliers > 0) != (b.outliers > 0)) return a.outliers > 0;
    return a.worst_mads > b.worst_mads;
  });
  return out;
}

}  // namespace pipebench
