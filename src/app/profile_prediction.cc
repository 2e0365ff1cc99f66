// SPDX-License-Identifier: Apache-2.0
#include "app/profile_prediction.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/printf_string.h"
#include "sim/predict_request.h"
#include "sim/verdict.h"
#include "trace/rank_timeline.h"

namespace pipebench {

ProfileModel profile_model(const Plan& plan, const std::vector<std::string>& files, const std::string& schedule,
                           std::optional<double> w_share) {
  const std::vector<RankTimeline> timelines = read_rank_timelines(files);
  CalibrationOptions co;
  co.schedule = schedule;
  if (w_share) co.w_share = *w_share;
  ProfileModel m{calibrate(plan, timelines, co), {}, {}};
  const Calibration& c = m.calibration;
  PredictRequest request;
  request.costs = GivenCosts{c.costs.get(), ""};
  request.compute = c.compute;
  request.schedule = c.schedule.key();
  request.keep_trace = true;
  const Prediction resim = predict(c.plan, request).prediction;
  const auto it = std::find_if(resim.schedules.begin(), resim.schedules.end(),
                               [&c](const SchedulePrediction& s) { return s.id == c.schedule; });
  if (it == resim.schedules.end())
    throw Error("--profile: the profiled schedule " + c.schedule.key() + " was not simulated");
  m.check = check_profiled(c, *it);
  m.cost_text = "measured from the profile (" + std::to_string(timelines.size()) + " files, " + c.schedule.label() +
                ", " + std::to_string(c.iterations) + (c.iterations == 1 ? " iteration" : " iterations") + ")";
  return m;
}

void apply_profile(const ProfileModel& m, Prediction& p, bool communication_from_profile) {
  p.measured_terms.clear();
  for (const MeasuredTerm& t : m.calibration.terms) {
    if (communication_from_profile || t.rank >= 0) p.measured_terms.push_back(t);  // rank -1: the job's links
  }
  p.profile_check = m.check;
  p.notes.insert(p.notes.end(), m.calibration.notes.begin(), m.calibration.notes.end());
  const ProfileCheck& c = m.check;
  double worst = std::abs(c.error());
  for (const auto& r : c.ranks) {
    if (c.measured_ms > 0) worst = std::max(worst, std::abs(r.simulated_end_ms - r.measured_end_ms) / c.measured_ms);
  }
  const double spread = m.calibration.iterations > 1 ? m.calibration.spread / 2 : 0.01;
  const double band = std::min(0.5, std::max(kMinSpeedupBand, worst + spread));
  decide_verdict(p, band,
                 printf_string("the profiled %s re-simulated within %.1f %% + %.1f %% %s", c.schedule.label().c_str(),
                               100 * worst, 100 * spread,
                               m.calibration.iterations > 1 ? "(the profiled iterations' spread)"
                                                            : "(one iteration profiled: its spread not known)"));
}

}  // namespace pipebench
