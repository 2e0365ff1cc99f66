// SPDX-License-Identifier: Apache-2.0
// Node diagnosis across hosts or pairs (SuperBench's defective-node detection): the same point measured
// on several hosts (or pairs) is compared with its peers; a member more than K median absolute
// deviations on the bad side of its peers' median is an outlier.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "io/report_model.h"
#include "report/metric.h"

namespace pipebench {

struct MadFinding {
  const InputFile<ResultSet>* input = nullptr;
  const ResultRecord* record = nullptr;
  std::string member;  // the host, and for pair records the pair
  double value = 0;
  double peers_median = 0;
  double mad = 0;         // of the peers, floored (see mad_outliers)
  double deviations = 0;  // (peers' median - value) / mad, signed so that > 0 is the bad side
  bool outlier = false;
};

// Groups the records of every input by point (op, dtype, redop, size, placement, nranks, root, graph);
// each group of at least 3 members (hosts, or pairs of a pair sweep) yields one finding per member.
// The peers of a member are the other members of its group. The MAD is floored at 1% of the peers'
// median, so that peers that agree exactly do not turn noise into outliers. keep: which records count.
[[nodiscard]] std::vector<MadFinding> mad_outliers(const std::vector<InputFile<ResultSet>>& inputs,
                                                   const Metric& metric, double k,
                                                   const std::function<bool(const ResultRecord&)>& keep);

// One row per host: its points, outliers and worst deviation (for the report's diagnosis table).
[[nodiscard]] std::vector<HostDiagnosis> diagnose_hosts(const std::vector<MadFinding>& findings);

}  // namespace pipebench
