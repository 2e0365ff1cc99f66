// SPDX-License-Identifier: Apache-2.0
// Clock alignment of the ranks of a job.
#include "trace/job_align.h"

#include <algorithm>
#include <limits>

#include "core/error.h"

namespace pipebench {
namespace {

// The communication kind every rank ran whose first run starts earliest on the first rank; empty if none.
std::string common_anchor(const std::vector<RankClock>& ranks) {
  if (ranks.empty() || ranks[0].marks == nullptr) return {};
  std::string best;
  std::int64_t best_start = std::numeric_limits<std::int64_t>::max();
  for (const auto& [key, runs] : *ranks[0].marks) {
    if (runs.empty()) continue;
    bool everywhere = true;
    for (const auto& r : ranks) {
      everywhere = everywhere && r.marks != nullptr && r.marks->count(key) != 0 && !r.marks->at(key).empty();
    }
    if (everywhere && runs[0].first < best_start) best = key, best_start = runs[0].first;
  }
  return best;
}

// Largest spread (max - min over ranks) of the ends of runs `from`.. of `key` that every rank has.
void measure_spread(const std::vector<RankClock>& ranks, const std::string& key, std::size_t from, ClockAlignment& a) {
  std::size_t runs = std::numeric_limits<std::size_t>::max();
  for (const auto& r : ranks) runs = std::min(runs, r.marks->at(key).size());
  std::int64_t worst = 0;
  for (std::size_t i = from; i < runs; ++i) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const std::int64_t end = ranks[r].marks->at(key)[i].second + a.offset_ns[r];
      lo = std::min(lo, end);
      hi = std::max(hi, end);
    }
    worst = std::max(worst, hi - lo);
    ++a.checked_runs;
  }
  if (a.checked_runs > 0) a.uncertainty_ns = worst;
}

}  // namespace

ClockAlignment align_rank_clocks(const std::vector<RankClock>& ranks, const std::string& method) {
  ClockAlignment a;
  a.offset_ns.assign(ranks.size(), 0);
  if (ranks.empty()) return a;
  const bool all_epoch =
      std::all_of(ranks.begin(), ranks.end(), [](const RankClock& r) { return r.epoch_ns.has_value(); });
  a.anchor = common_anchor(ranks);
  if (method == "epoch" && !all_epoch) {
    throw UsageError("--align epoch: a profile records no wall clock (no baseTimeNanoseconds / utcEpochNs)");
  }
  if (method == "collective" && a.anchor.empty()) {
    throw UsageError("--align collective: no NCCL collective kernel that every rank ran");
  }
  if (all_epoch && method != "collective") {
    a.method = "epoch";
    std::int64_t base = *ranks[0].epoch_ns;
    for (const auto& r : ranks) base = std::min(base, *r.epoch_ns);
    for (std::size_t i = 0; i < ranks.size(); ++i) a.offset_ns[i] = *ranks[i].epoch_ns - base;
    if (!a.anchor.empty()) measure_spread(ranks, a.anchor, 0, a);
    // A collective's ends cannot be further apart than its shortest run lasted: the clocks disagree.
    std::int64_t shortest = std::numeric_limits<std::int64_t>::max();
    for (const auto& r : ranks)
      if (!a.anchor.empty())
        shortest = std::min(shortest, r.marks->at(a.anchor)[0].second - r.marks->at(a.anchor)[0].first);
    if (a.uncertainty_ns && *a.uncertainty_ns > shortest) {
      a.note = "the recorded wall clocks disagree: the ends of " + a.anchor + " spread more than its shortest run (" +
               std::to_string(shortest / 1000) + " us) lasts; --align collective aligns on them instead";
    }
    if (a.anchor.empty()) a.note = "no collective that every rank ran: the recorded wall clocks are taken as they are";
  } else if (!a.anchor.empty()) {
    a.method = "collective";
    const std::int64_t ref = ranks[0].marks->at(a.anchor)[0].second;
    for (std::size_t i = 0; i < ranks.size(); ++i) a.offset_ns[i] = ref - ranks[i].marks->at(a.anchor)[0].second;
    measure_spread(ranks, a.anchor, 1, a);
    if (a.checked_runs == 0) a.note = "one run of " + a.anchor + " in common: the alignment cannot be checked";
  } else {
    a.method = "none";
    a.note = "no wall clock in every profile and no collective that every rank ran: each rank's own clock";
  }
  // Job time 0 = the first activity of any rank.
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < ranks.size(); ++i) first = std::min(first, ranks[i].first_ns + a.offset_ns[i]);
  for (auto& o : a.offset_ns) o -= first;
  return a;
}

}  // namespace pipebench
