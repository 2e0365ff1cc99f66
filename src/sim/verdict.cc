// SPDX-License-Identifier: Apache-2.0
#include "sim/verdict.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/printf_string.h"

namespace pipebench {
namespace {

// The fastest and second-fastest schedules that are candidates (not the GPipe reference).
void two_fastest(const Prediction& p, const SchedulePrediction** best, const SchedulePrediction** next) {
  *best = *next = nullptr;
  for (const auto& s : p.schedules) {
    const double ms = p.compared_ms(s);
    if (s.reference || ms <= 0) continue;
    if (!*best || ms < p.compared_ms(**best)) {
      *next = *best;
      *best = &s;
    } else if (!*next || ms < p.compared_ms(**next)) {
      *next = &s;
    }
  }
}

std::string choice_text(const Prediction& p, const SchedulePrediction* base, const SchedulePrediction* best,
                        const SchedulePrediction* next) {
  const double pct = p.band * 100;
  if (!base)
    return printf_string("%s: %.3f ms (no 1F1B in the plan to compare with)", p.best.c_str(), p.compared_ms(*best));
  if (best != base) {
    if (p.too_close) {
      return printf_string(
          "too close to call: %s is %.2fx 1F1B (%.3f vs %.3f ms), inside the model's +-%.0f %% band (%s)",
          p.best.c_str(), best->speedup, p.compared_ms(*best), p.compared_ms(*base), pct, p.band_source.c_str());
    }
    return printf_string(
        "%s is fastest: %.3f ms, %.2fx 1F1B (%.3f ms), beyond the model's +-%.0f %% band (%s): its smaller bubble "
        "outweighs its extra P2P",
        p.best.c_str(), p.compared_ms(*best), best->speedup, p.compared_ms(*base), pct, p.band_source.c_str());
  }
  if (!next) {  // 1F1B alone, or the baseline of references asked for alone: named beside it, never picked
    std::string refs;
    for (const auto& s : p.schedules) {
      if (!s.reference || p.compared_ms(s) <= 0) continue;
      refs += printf_string("%s%s %.3f ms, %.2fx", refs.empty() ? "" : "; ", s.id.label().c_str(), p.compared_ms(s),
                            s.speedup);
    }
    return printf_string("1F1B: %.3f ms", p.compared_ms(*base)) +
           (refs.empty() ? "" : " (the baseline; references beside it: " + refs + ")");
  }
  const double lead = p.compared_ms(*next) / p.compared_ms(*base);
  if (p.too_close) {
    return printf_string(
        "too close to call: 1F1B (%.3f ms) is %.2fx %s (%.3f ms), inside the model's +-%.0f %% band (%s)",
        p.compared_ms(*base), lead, next->id.label().c_str(), p.compared_ms(*next), pct, p.band_source.c_str());
  }
  return printf_string(
      "1F1B is fastest (%.3f ms, %.2fx %s, beyond the model's +-%.0f %% band (%s)): interleaving's extra P2P costs "
      "more than its smaller bubble saves",
      p.compared_ms(*base), lead, next->id.label().c_str(), pct, p.band_source.c_str());
}

}  // namespace

void decide_verdict(Prediction& p, double band, const std::string& band_source) {
  if (!std::isfinite(band) || band <= 0 || band >= 1)
    throw UsageError(printf_string("band %g: must be in (0, 1)", band));
  p.band = band;
  p.band_source = band_source;
  const SchedulePrediction *best = nullptr, *next = nullptr, *base = nullptr;
  two_fastest(p, &best, &next);
  for (const auto& s : p.schedules) {
    if (s.id.is_baseline()) base = &s;
  }
  if (!best) {  // only references: compared, never the pick
    p.best.clear();
    p.too_close = false;
    p.verdict = "no verdict: only reference schedules were predicted, and a reference is compared, never the pick";
    return;
  }
  p.best = best->id.label();
  // A speed-up s is known to s(1 +- band): the call is too close when the lead of the faster schedule over
  // the other (best over 1F1B, or 1F1B over the next) times (1 - band) does not clear 1.
  const SchedulePrediction* other = best == base ? next : base;
  p.too_close = other && p.compared_ms(*best) > 0 && p.compared_ms(*other) / p.compared_ms(*best) * (1 - band) <= 1.0;
  std::string text = choice_text(p, base, best, next);
  if (!best->dominant.what.empty()) {
    text += printf_string("; its largest cost is %s: %.3f ms, %.0f %% of the iteration", best->dominant.what.c_str(),
                          best->dominant.ms, best->dominant.share * 100);
  }
  if (!p.deciding_pair.empty()) {
    text += printf_string("; the slowest pipeline link is %d->%d, %.4f ms per %lld-byte activation", p.deciding_pair[0],
                          p.deciding_pair[1], p.deciding_pair_ms, static_cast<long long>(p.deciding_bytes));
  }
  text += p.compares_cold ? "; it compares cold iterations (the first, from a cold start: --compare cold)"
                          : "; it compares steady-state iterations (the last of " + std::to_string(kSteadyIterations) +
                                " back to back)";
  p.verdict = text;
}

double measured_band(const std::map<std::string, double>& predicted_ms,
                     const std::map<std::string, double>& replayed_ms) {
  const auto pb = predicted_ms.find("1f1b");
  const auto rb = replayed_ms.find("1f1b");
  if (pb == predicted_ms.end() || rb == replayed_ms.end() || pb->second <= 0 || rb->second <= 0)
    return kDefaultSpeedupBand;
  double worst = -1;
  for (const auto& [key, pred_ms] : predicted_ms) {
    const auto it = replayed_ms.find(key);
    if (key == "1f1b" || it == replayed_ms.end() || pred_ms <= 0 || it->second <= 0) continue;
    const double predicted_speedup = pb->second / pred_ms, replayed_speedup = rb->second / it->second;
    worst = std::max(worst, std::fabs(predicted_speedup / replayed_speedup - 1));
  }
  if (worst < 0) return kDefaultSpeedupBand;
  return std::max(kMinSpeedupBand, worst);
}

std::string band_source_text(const std::string& band_source) {
  if (band_source == "default") {
    return "default: the model's largest error in replays on CPU ranks (README \"Predictions that hold\"), not "
           "measured on these ranks";
  }
  return band_source;
}

namespace {

// Iteration times with a spread: a schedule without min and max is known to its median.
double fastest_ms(const ReplayedSchedule& s) { return s.min_ms > 0 ? s.min_ms : s.median_ms; }
double slowest_ms(const ReplayedSchedule& s) { return s.max_ms > 0 ? s.max_ms : s.median_ms; }

// The fastest schedule by `ms` among those that are not references, and whether the runner-up is within
// the band of it.
const ReplayedSchedule* fastest(const std::vector<const ReplayedSchedule*>& schedules,
                                double (*ms)(const ReplayedSchedule&), double band, bool* too_close) {
  const ReplayedSchedule *best = nullptr, *next = nullptr;
  for (const ReplayedSchedule* s : schedules) {
    if (s->reference) continue;
    if (!best || ms(*s) < ms(*best)) {
      next = best;
      best = s;
    } else if (!next || ms(*s) < ms(*next)) {
      next = s;
    }
  }
  if (too_close) *too_close = best && next && ms(*next) / ms(*best) * (1 - band) <= 1.0;
  return best;
}

double predicted(const ReplayedSchedule& s) { return s.predicted_ms; }
double median(const ReplayedSchedule& s) { return s.median_ms; }

// What the held schedules contradict: each finding goes to `off` when beyond the band and the replay's
// spread, to `unsure` when only the spread reaches into the band.
struct Findings {
  std::string off, unsure;
  void add(bool covered, const std::string& what) {
    std::string& to = covered ? unsure : off;
    to += (to.empty() ? "" : "; ") + what;
  }
};

void check_fastest(const std::vector<const ReplayedSchedule*>& held, double band, Findings& f, std::string* measured) {
  bool close = false;
  const ReplayedSchedule* pf = fastest(held, predicted, band, &close);
  const ReplayedSchedule* rf = fastest(held, median, band, nullptr);
  *measured =
      rf ? "measured fastest " + rf->key + ", predicted " + (close ? "too close to call" : "fastest " + pf->key) : "";
  if (!pf || !rf || close || pf == rf) return;
  f.add(fastest_ms(*pf) <= slowest_ms(*rf),
        printf_string("measured fastest %s, predicted fastest %s (%s's iterations %.3f-%.3f ms, %s's %.3f-%.3f ms)",
                      rf->key.c_str(), pf->key.c_str(), rf->key.c_str(), fastest_ms(*rf), slowest_ms(*rf),
                      pf->key.c_str(), fastest_ms(*pf), slowest_ms(*pf)));
}

// Each speed-up over 1F1B: the predicted one against the replayed median and range.
void check_speedups(const std::vector<const ReplayedSchedule*>& held, double band, Findings& f) {
  const auto base_it = std::find_if(held.begin(), held.end(), [](const auto* s) { return s->key == "1f1b"; });
  if (base_it == held.end()) return;
  const ReplayedSchedule& base = **base_it;
  for (const ReplayedSchedule* s : held) {
    if (s == &base) continue;
    const double sp = base.predicted_ms / s->predicted_ms, sr = base.median_ms / s->median_ms;
    if (std::fabs(sp / sr - 1) <= band) continue;
    // sp/sr - 1 within +-band: sr in [sp / (1 + band), sp / (1 - band)].
    const double lo = fastest_ms(base) / slowest_ms(*s), hi = slowest_ms(base) / fastest_ms(*s);
    const bool covered = hi >= sp / (1 + band) && lo <= sp / (1 - band);
    f.add(covered, printf_string("%s%s speed-up predicted %.2fx, replayed %.2fx (%.2fx-%.2fx over its iterations)",
                                 s->key.c_str(), s->reference ? " (reference)" : "", sp, sr, lo, hi));
  }
}

// "; references checked: gpipe, zb-h1; not checked (no time): zbv"
std::string references_text(const std::vector<ReplayedSchedule>& schedules,
                            const std::vector<const ReplayedSchedule*>& held, bool have_base) {
  std::string checked, unchecked;
  for (const auto& s : schedules) {
    if (!s.reference) continue;
    const bool in = have_base && std::find(held.begin(), held.end(), &s) != held.end();
    std::string& to = in ? checked : unchecked;
    to += (to.empty() ? "" : ", ") + s.key;
  }
  std::string out;
  if (!checked.empty()) out += "; references checked: " + checked;
  if (!unchecked.empty()) out += "; references not checked (no predicted or replayed time, or no 1F1B): " + unchecked;
  return out;
}

}  // namespace

Agreement compare_with_replay(const std::vector<ReplayedSchedule>& schedules, double band,
                              const std::string& band_source) {
  Agreement a;
  std::vector<const ReplayedSchedule*> held;
  for (const auto& s : schedules) {
    if (s.predicted_ms > 0 && s.median_ms > 0) held.push_back(&s);
  }
  if (held.empty()) return a;
  a.compared = true;
  Findings f;
  std::string measured;
  check_fastest(held, band, f, &measured);
  check_speedups(held, band, f);
  const bool have_base =
      std::any_of(held.begin(), held.end(), [](const ReplayedSchedule* s) { return s->key == "1f1b"; });
  const std::string band_text = printf_string("band +-%.0f %% (%s)", band * 100, band_source_text(band_source).c_str());
  const std::string references = references_text(schedules, held, have_base);
  a.agree = f.off.empty() && f.unsure.empty();
  a.inconclusive = f.off.empty() && !f.unsure.empty();
  if (a.agree) {
    a.text = "prediction and replay agree: " + (measured.empty() ? std::string() : measured + ", ") +
             (have_base ? "every speed-up within the " : "no speed-up over 1F1B to check (1F1B not replayed), ") +
             band_text + references;
  } else if (a.inconclusive) {
    a.text = "prediction and replay inconclusive: " + f.unsure + ": the replay's own spread covers the difference; " +
             band_text + references;
  } else {
    a.text = "prediction and replay DISAGREE: " + f.off + (f.unsure.empty() ? "" : "; within the spread: " + f.unsure) +
             " (" + band_text + ", widened by the replay's spread" + references + ")";
  }
  return a;
}

}  // namespace pipebench
