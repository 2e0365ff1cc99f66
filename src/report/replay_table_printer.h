// SPDX-License-Identifier: Apache-2.0
// The replay's console text, one printer for `replay` and `run`: per schedule the predicted and replayed
// iteration (median, min-max), the error and both speed-ups over 1F1B, then the replay verdict line; and
// the lines only `replay` prints below it (each rank's communication share, the rank that drifted most).
#pragma once

#include <ostream>
#include <string>

#include "replay/replay.h"

namespace pipebench {

// band, band_source: the prediction's speed-up band and where it comes from (the verdict's "agree" test).
void print_replay_table(std::ostream& out, const ReplayResult& r, double band, const std::string& band_source);

// `replay`'s text: its first line (the plan file, ranks, backend, compute, iterations), the table, the
// shares and drift.
void print_replay_report(std::ostream& out, const ReplayResult& r, const std::string& plan_path, double band,
                         const std::string& band_source);

}  // namespace pipebench
