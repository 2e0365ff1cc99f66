// SPDX-License-Identifier: Apache-2.0
// Puts the ranks of one job on one clock. Each rank's profile has its own time 0; what ties them
// together is either the wall clock each profile recorded (Kineto baseTimeNanoseconds, nsys utcEpochNs:
// exact on one host, as good as NTP/PTP across hosts) or, failing that, a collective every rank ran:
// a collective ends on all ranks at nearly the same moment (its last step completes everywhere), so the
// ends of its first run are made to coincide. The ends of the later runs then measure how well the
// clocks agree: that spread is printed as the alignment's uncertainty.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pipebench {

struct RankClock {
  std::optional<std::int64_t> epoch_ns;  // wall clock of the profile's time 0
  // kind -> [start_ns, end_ns] of its first runs (DeviceProfile::comm_marks), on the profile's clock
  const std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>>* marks = nullptr;
  std::int64_t first_ns = 0;  // first activity on the profile's clock
};

struct ClockAlignment {
  std::string method;  // "epoch", "collective" or "none"
  std::string anchor;  // the collective kind whose runs align or check the clocks; empty: none in common
  std::vector<std::int64_t> offset_ns;         // per rank (input order): job time = profile time + offset
  std::optional<std::int64_t> uncertainty_ns;  // spread of the later common runs' ends; nullopt: unknown
  int checked_runs = 0;                        // runs the uncertainty was measured on
  std::string note;                            // why the uncertainty is unknown, or what was assumed
};

// How to align: "auto" (the wall clocks when every profile has one, else a common collective, else
// none), "epoch" or "collective" (the other source is then used only to measure the uncertainty).
// Offsets are shifted so that the job's first activity is at time 0. Throws UsageError naming --align
// when the method asked for is impossible (a profile without wall clock; no collective in common).
[[nodiscard]] ClockAlignment align_rank_clocks(const std::vector<RankClock>& ranks, const std::string& method = "auto");

}  // namespace pipebench
