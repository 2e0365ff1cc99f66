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
    if (s.reference || s.iteration_ms <= 0) continue;
    if (!*best || s.iteration_ms < (*best)->iteration_ms) {
      *next = *best;
      *best = &s;
    } else if (!*next || s.iteration_ms < (*next)->iteration_ms) {
      *next = &s;
    }
  }
}

std::string choice_text(const Prediction& p, const SchedulePrediction* base, const SchedulePrediction* best,
                        const SchedulePrediction* next) {
  const double pct = p.band * 100;
  if (!base) return printf_string("%s: %.3f ms", p.best.c_str(), best->iteration_ms);
  if (best != base) {
    if (p.too_close) {
      return printf_string(
          "too close to call: %s is %.2fx 1F1B (%.3f vs %.3f ms), inside the model's +-%.0f %% band (%s)",
          p.best.c_str(), best->speedup, best->iteration_ms, base->iteration_ms, pct, p.band_source.c_str());
    }
    return printf_string(
        "%s is fastest: %.3f ms, %.2fx 1F1B (%.3f ms), beyond the model's +-%.0f %% band (%s): its smaller bubble "
        "outweighs its extra P2P",
        p.best.c_str(), best->iteration_ms, best->speedup, base->iteration_ms, pct, p.band_source.c_str());
  }
  if (!next) return printf_string("1F1B: %.3f ms", base->iteration_ms);
  const double lead = next->iteration_ms / base->iteration_ms;
  if (p.too_close) {
    return printf_string(
        "too close to call: 1F1B (%.3f ms) is %.2fx %s (%.3f ms), inside the model's +-%.0f %% band (%s)",
        base->iteration_ms, lead, next->id.label().c_str(), next->iteration_ms, pct, p.band_source.c_str());
  }
  return printf_string(
      "1F1B is fastest (%.3f ms, %.2fx %s, beyond the model's +-%.0f %% band (%s)): interleaving's extra P2P costs "
      "more than its smaller bubble saves",
      base->iteration_ms, lead, next->id.label().c_str(), pct, p.band_source.c_str());
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
  if (!best) best = &p.schedules.front();
  p.best = best->id.label();
  // A speed-up s is known to s(1 +- band): the call is too close when the lead of the faster schedule over
  // the other (best over 1F1B, or 1F1B over the next) times (1 - band) does not clear 1.
  const SchedulePrediction* other = best == base ? next : base;
  p.too_close = other && best->iteration_ms > 0 && other->iteration_ms / best->iteration_ms * (1 - band) <= 1.0;
  std::string text = choice_text(p, base, best, next);
  if (!best->dominant.what.empty()) {
    text += printf_string("; its largest cost is %s: %.3f ms, %.0f %% of the iteration", best->dominant.what.c_str(),
                          best->dominant.ms, best->dominant.share * 100);
  }
  if (!p.deciding_pair.empty()) {
    text += printf_string("; the slowest pipeline link is %d->%d, %.4f ms per %lld-byte activation", p.deciding_pair[0],
                          p.deciding_pair[1], p.deciding_pair_ms, static_cast<long long>(p.deciding_bytes));
  }
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

namespace {

// The key of the smallest time, and whether the runner-up is within the band of it.
std::string fastest(const std::map<std::string, double>& ms, double band, bool* too_close) {
  std::string best, next;
  for (const auto& [key, t] : ms) {
    if (t <= 0) continue;
    if (best.empty() || t < ms.at(best)) {
      next = best;
      best = key;
    } else if (next.empty() || t < ms.at(next)) {
      next = key;
    }
  }
  if (too_close) *too_close = !next.empty() && ms.at(next) / ms.at(best) * (1 - band) <= 1.0;
  return best;
}

}  // namespace

Agreement compare_with_replay(const std::map<std::string, double>& predicted_ms,
                              const std::map<std::string, double>& replayed_ms, double band) {
  Agreement a;
  std::map<std::string, double> pred, repl;
  for (const auto& [key, t] : predicted_ms) {
    const auto it = replayed_ms.find(key);
    if (it != replayed_ms.end() && t > 0 && it->second > 0) {
      pred[key] = t;
      repl[key] = it->second;
    }
  }
  if (pred.empty()) return a;
  a.compared = true;
  bool close = false;
  const std::string pf = fastest(pred, band, &close), rf = fastest(repl, band, nullptr);
  std::string why;
  if (!close && pf != rf) why = "measured fastest " + rf + ", predicted fastest " + pf;
  const auto base_p = pred.find("1f1b"), base_r = repl.find("1f1b");
  for (const auto& [key, t] : pred) {
    if (key == "1f1b" || base_p == pred.end() || base_r == repl.end()) continue;
    const double sp = base_p->second / t, sr = base_r->second / repl.at(key);
    if (std::fabs(sp / sr - 1) > band) {
      why +=
          printf_string("%s%s speed-up predicted %.2fx, replayed %.2fx", why.empty() ? "" : "; ", key.c_str(), sp, sr);
    }
  }
  a.agree = why.empty();
  if (a.agree) {
    a.text = "prediction and replay agree: measured fastest " + rf + ", predicted " +
             (close ? "too close to call" : "fastest " + pf) +
             printf_string(", every speed-up within the +-%.0f %% band", band * 100);
  } else {
    a.text = "prediction and replay DISAGREE: " + why + printf_string(" (band +-%.0f %%)", band * 100);
  }
  return a;
}

}  // namespace pipebench
