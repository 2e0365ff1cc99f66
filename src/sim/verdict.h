// SPDX-License-Identifier: Apache-2.0
// The verdict of a prediction: which schedule is fastest, by how much, and whether that difference is
// larger than what the model can tell apart (its uncertainty band); and which single cost dominates
// the iteration. A speed-up whose band contains 1.0 is "too close to call", never a winner.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/predictor.h"

namespace pipebench {

// The half-width of a speed-up's band when no replay on these ranks measured the model's error: the
// largest speed-up error of the validation grid (README "Predictions that hold": predict against replay
// on 4 and 8 MPI ranks of a 16-core node, compute 0.5/1 to 8/16 ms per layer, every schedule) rounded
// up, 2.8 % -> 5 %.
inline constexpr double kDefaultSpeedupBand = 0.05;
// A measured band is never taken below this (a replay of a few iterations has its own noise).
inline constexpr double kMinSpeedupBand = 0.01;

// Sets p.best, p.too_close, p.band, p.band_source and p.verdict from p.schedules (speed-ups already
// set). band: relative half-width of each speed-up's uncertainty, in (0, 1).
void decide_verdict(Prediction& p, double band, const std::string& band_source);

// The band from a replay of the same schedules on these ranks: the largest relative difference between
// a predicted and a replayed speed-up over 1F1B, at least kMinSpeedupBand. predicted and replayed are
// iteration times by schedule key ("1f1b", "interleaved:v2"); returns kDefaultSpeedupBand when they
// share no schedule besides 1F1B.
[[nodiscard]] double measured_band(const std::map<std::string, double>& predicted_ms,
                                   const std::map<std::string, double>& replayed_ms);

// The band's source in words, for a verdict line: decide_verdict's "default" is kDefaultSpeedupBand, taken
// from replays on CPU ranks, not from these ranks; any other source (a replay's file) is said as given.
[[nodiscard]] std::string band_source_text(const std::string& band_source);

// One schedule of a replay held against its prediction: the predicted time and the replayed iterations'
// median, fastest and slowest (min and max 0: only the median is known).
struct ReplayedSchedule {
  std::string key;  // "1f1b", "interleaved:v2", "gpipe"
  bool reference = false;
  double predicted_ms = 0, median_ms = 0, min_ms = 0, max_ms = 0;
};

// Whether a replay of the schedules contradicts their prediction. A speed-up over 1F1B is checked for every
// schedule, references included; the replayed speed-up is a range, 1F1B's fastest iteration over the
// schedule's slowest to 1F1B's slowest over its fastest. It agrees when the replayed median is within the
// band of the predicted speed-up; it is inconclusive when only the range reaches into the band (the
// replay's own spread covers the difference); else it disagrees. The same for the fastest schedule
// (references never count): when the prediction named a winner (its lead beyond the band) and the replay
// measured another, it disagrees unless their iterations overlap. compared is false when no schedule has
// both times.
struct Agreement {
  bool compared = false, agree = true, inconclusive = false;
  std::string text;  // one line: "prediction and replay agree: ...", "... inconclusive: ..." or "... DISAGREE: ..."
};
[[nodiscard]] Agreement compare_with_replay(const std::vector<ReplayedSchedule>& schedules, double band,
                                            const std::string& band_source);

}  // namespace pipebench
