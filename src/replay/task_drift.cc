// SPDX-License-Identifier: Apache-2.0
#include "replay/task_drift.h"

#include <algorithm>

namespace pipebench {
namespace {

std::string kind_of(const TraceEvent& e) {
  if (e.track == "compute") return "compute";
  if (e.track == "collectives") return "collective";
  return e.name == "wait" ? "wait" : "p2p";
}

// One matched task: where the replay and the simulation reached it.
struct Matched {
  std::string task, kind;
  SimTime replayed = 0, predicted = 0;
};

std::vector<Matched> match(const std::vector<TraceEvent>& events, const std::vector<TaskStart>& starts,
                           int& unmatched) {
  std::map<std::string, std::vector<SimTime>> predicted;  // label -> starts in order
  for (const auto& t : starts) predicted[t.label].push_back(t.start);
  std::map<std::string, std::size_t> seen;
  std::vector<Matched> out;
  for (const auto& e : events) {
    const std::size_t k = seen[e.name]++;
    const auto it = predicted.find(e.name);
    if (it == predicted.end() || k >= it->second.size()) {
      ++unmatched;
      continue;
    }
    const std::string task =
        it->second.size() > 1 && e.track != "compute" ? e.name + " #" + std::to_string(k + 1) : e.name;
    out.push_back({task, kind_of(e), e.start, it->second[k]});
  }
  return out;
}

}  // namespace

std::vector<RankDrift> task_drift(const std::vector<std::vector<TraceEvent>>& replayed, const SimResult& predicted,
                                  const std::vector<int>& pipeline_rank_of) {
  std::vector<RankDrift> out;
  for (std::size_t r = 0; r < replayed.size() && r < pipeline_rank_of.size(); ++r) {
    const int pr = pipeline_rank_of[r];
    if (pr < 0 || static_cast<std::size_t>(pr) >= predicted.task_starts.size() ||
        static_cast<std::size_t>(pr) >= predicted.ranks.size() || replayed[r].empty())
      continue;
    RankDrift d;
    d.rank = static_cast<int>(r);
    d.pipeline_rank = pr;
    const auto m = match(replayed[r], predicted.task_starts[static_cast<std::size_t>(pr)], d.unmatched);
    d.matched = static_cast<int>(m.size());
    SimTime replayed_end = 0;
    for (const auto& e : replayed[r]) replayed_end = std::max(replayed_end, e.end);
    const SimTime predicted_end = predicted.ranks[static_cast<std::size_t>(pr)].end;
    d.end_drift_ms = static_cast<double>(replayed_end - predicted_end) / 1e6;
    std::vector<TaskDriftItem> items;
    for (std::size_t i = 0; i < m.size(); ++i) {
      const SimTime here = m[i].replayed - m[i].predicted;
      const SimTime next = i + 1 < m.size() ? m[i + 1].replayed - m[i + 1].predicted : replayed_end - predicted_end;
      const double added_ms = static_cast<double>(next - here) / 1e6;
      d.by_kind_ms[m[i].kind] += added_ms;
      items.push_back({m[i].task, m[i].kind, added_ms});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const TaskDriftItem& a, const TaskDriftItem& b) { return a.added_ms > b.added_ms; });
    if (items.size() > kLargestDrifts) items.resize(kLargestDrifts);
    d.largest = std::move(items);
    out.push_back(std::move(d));
  }
  return out;
}

const RankDrift* most_drifted(const std::vector<RankDrift>& drifts) {
  const RankDrift* best = nullptr;
  for (const auto& d : drifts) {
    if (!best || d.end_drift_ms > best->end_drift_ms) best = &d;
  }
  return best;
}

}  // namespace pipebench
