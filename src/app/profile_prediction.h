// SPDX-License-Identifier: Apache-2.0
// A prediction's terms taken from the job's own profile (trace/profile_calibration.h), shared by `predict
// --profile` and `run --profile`: the profiles read and matched to the plan, the profiled schedule
// re-simulated from the terms (its residual is the band every other schedule's verdict carries).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "megatron/plan.h"
#include "sim/predictor.h"
#include "trace/profile_calibration.h"

namespace pipebench {

struct ProfileModel {
  Calibration calibration;
  ProfileCheck check;
  std::string cost_text;  // "measured from the profile (4 files, 1f1b, 1 iteration)"
};

// files: one profile per rank (trace/rank_timeline.h). schedule: the schedule they ran, or "" for the plan's
// schedule whose passes match. w_share: W's part of the backward where the profile never runs W apart
// (nullopt: the model's default). Throws UsageError naming the file and the mismatch.
[[nodiscard]] ProfileModel profile_model(const Plan& plan, const std::vector<std::string>& files,
                                         const std::string& schedule, std::optional<double> w_share);

// Into a prediction made from m's terms: the measured terms, the re-simulation's check, the calibration's
// notes, and the verdict with its band = how far the re-simulation is from the profile (its iteration and
// its latest rank) + the profiled iterations' own spread (1 % where one was profiled). Where the prediction's
// communication was measured elsewhere (run --profile: on this node), the profile's communication terms are
// left out of the measured terms: they did not enter it.
void apply_profile(const ProfileModel& m, Prediction& p, bool communication_from_profile = true);

}  // namespace pipebench
