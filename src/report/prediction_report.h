// SPDX-License-Identifier: Apache-2.0
// The text of a prediction: the schedule table (predict and run print the same one), the per-rank
// breakdown, break-even bandwidths, cost sources and verdict.
#pragma once

#include <ostream>

#include "sim/predictor.h"

namespace pipebench {

// Header line and one row per schedule. mark_no_overlap: name interleaved schedules simulated with
// --no-overlap-p2p-communication as such.
void print_schedule_table(std::ostream& out, const Prediction& p, bool mark_no_overlap);

// Per schedule and rank: compute, exposed communication, idle, NCCL share, P2P bytes out.
void print_rank_breakdown(std::ostream& out, const Prediction& p);

// Break-even bandwidths (when any), cost sources and the verdict.
void print_break_even_and_verdict(std::ostream& out, const Prediction& p);

}  // namespace pipebench
