// SPDX-License-Identifier: Apache-2.0
// The replay's table.
#include "app/replay_table.h"

#include <algorithm>
#include <cstdio>

namespace pipebench {

int replay_name_width(const ReplayResult& r) {
  int width = 18;
  for (const auto& s : r.schedules)
    width = std::max(width, static_cast<int>(s.id.key().size() + (s.reference ? 6 : 0)));
  return width;
}

std::string replay_table(const ReplayResult& r, double band) {
  const int width = replay_name_width(r);
  std::string text;
  char line[512];
  std::snprintf(line, sizeof line, "#  %-*s %12s %28s %8s %10s %10s\n", width, "schedule", "predicted ms",
                "replayed ms (median, min-max)", "error %", "speed-up p", "speed-up r");
  text += line;
  const ScheduleReplay* base = nullptr;
  for (const auto& s : r.schedules) {
    if (s.id.is_baseline()) base = &s;
  }
  for (const auto& s : r.schedules) {
    char pred[32] = "-", err[32] = "-", sp[32] = "-", sr[32] = "-", measured[96];
    if (s.predicted_ms) {
      std::snprintf(pred, sizeof pred, "%.3f", *s.predicted_ms);
      if (s.median_ms > 0) std::snprintf(err, sizeof err, "%+.1f", 100 * (*s.predicted_ms - s.median_ms) / s.median_ms);
      if (base && base->predicted_ms) std::snprintf(sp, sizeof sp, "%.3f", *base->predicted_ms / *s.predicted_ms);
    }
    if (base && s.median_ms > 0) std::snprintf(sr, sizeof sr, "%.3f", base->median_ms / s.median_ms);
    std::snprintf(measured, sizeof measured, "%.3f (%.3f-%.3f)", s.median_ms, s.min_ms, s.max_ms);
    const std::string name = s.id.key() + (s.reference ? " (ref)" : "");
    std::snprintf(line, sizeof line, "   %-*s %12s %28s %8s %10s %10s\n", width, name.c_str(), pred, measured, err, sp,
                  sr);
    text += line;
  }
  if (r.predicted_fastest.empty()) {
    text += "# Replay verdict: " + r.measured_fastest + " is fastest measured (no prediction)\n";
  } else {
    text += "# Replay verdict: " + replay_agreement(r, band).text + "\n";
  }
  return text;
}

}  // namespace pipebench
