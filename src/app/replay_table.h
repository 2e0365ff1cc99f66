// SPDX-License-Identifier: Apache-2.0
// The replay's table, one text for `replay` and `run`: per schedule the predicted and replayed iteration
// (median, min-max), the error and both speed-ups over 1F1B, then the replay verdict line.
#pragma once

#include <string>

#include "replay/replay.h"

namespace pipebench {

// The width of the schedule-name column: 18, or the longest name ("interleaved-zb:v2 (ref)").
[[nodiscard]] int replay_name_width(const ReplayResult& r);

// band: the prediction's speed-up band (the verdict's "agree" test).
[[nodiscard]] std::string replay_table(const ReplayResult& r, double band);

}  // namespace pipebench
