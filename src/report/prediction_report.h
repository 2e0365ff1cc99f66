// SPDX-License-Identifier: Apache-2.0
// The text of a prediction: the lines above the table (what `predict` predicted and from which costs),
// the schedule table (predict and run print the same one), the activations held by schedules that split
// B and W, the per-rank breakdown, break-even bandwidths, cost sources and verdict.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/predictor.h"

namespace pipebench {

// `predict`'s whole text: what it names above its table (costs: the cost source, "assumed: every link ...",
// the table's path, ...; shared_path: --shared-path, every pipeline pair on one path; topology_links:
// transfers share these links of their topology paths; comm_sm_slowdown: --comm-sm-slowdown), the schedule
// table, the memory notes, the per-rank breakdown, break-even bandwidths and verdict. base_held: 1F1B's
// activations held at the peak per pipeline rank (beside those of the schedules that split B and W; unused
// when none does).
void print_prediction(std::ostream& out, const std::string& plan_path, const std::string& costs, bool shared_path,
                      std::optional<std::size_t> topology_links, double comm_sm_slowdown, const Prediction& p,
                      const std::vector<double>& base_held);

// predict/run --profile: every term taken from the profile (the per-rank ones as a table, a column per term,
// then the job's), then the profiled schedule re-simulated from them, rank by rank, and the passes whose start
// it misses most. Nothing without a profile check.
void print_profile_calibration(std::ostream& out, const Prediction& p);

// Header line and one row per schedule. mark_no_overlap: name interleaved schedules simulated with
// --no-overlap-p2p-communication as such.
void print_schedule_table(std::ostream& out, const Prediction& p, bool mark_no_overlap);

}  // namespace pipebench
