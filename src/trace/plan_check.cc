// SPDX-License-Identifier: Apache-2.0
// Profile vs plan.
#include "trace/plan_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.h"

namespace pipebench {
namespace {

using json = nlohmann::json;
using Key = std::pair<std::string, std::int64_t>;  // (op, elements)

struct Planned {
  std::int64_t per_iteration = 0;
  std::set<std::string> dtypes;
  std::string what;
};

struct Seen {
  std::int64_t count = 0;
  std::set<std::string> dtypes;  // known ones only
};

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ",") + x;
  return out;
}

std::map<Key, Planned> planned_for(const Schedule& schedule, int rank) {
  std::map<Key, Planned> out;
  for (const auto& m : schedule.messages) {
    if (m.rank != rank) continue;
    Planned& p = out[{std::string(m.op.name()), m.elements}];
    p.per_iteration += m.count;
    p.dtypes.insert(std::string(dtype_name(m.dtype)));
    if (p.what.empty()) p.what = m.what;
  }
  return out;
}

std::map<Key, Seen> seen_on(const DeviceProfile& d, std::int64_t* unsized) {
  std::map<Key, Seen> out;
  for (const auto& c : d.collectives) {
    if (c.elements < 0) {
      *unsized += c.count;
      continue;
    }
    Seen& s = out[{c.op, c.elements}];
    s.count += c.count;
    if (!c.dtype.empty()) s.dtypes.insert(c.dtype);
  }
  return out;
}

struct Candidate {
  const Schedule* schedule = nullptr;
  PlanCheck check;
};

// --iterations, else the profiler steps, else the median ratio of seen to planned counts (robust to a
// few messages that differ), else 1.
void set_iterations(PlanCheck& c, const PlanCheckOptions& o, const TraceProfile& profile, std::vector<double> ratios) {
  if (o.iterations > 0) {
    c.iterations = o.iterations;
    c.iterations_source = "given (--iterations)";
  } else if (profile.profiler_steps > 0) {
    c.iterations = profile.profiler_steps;
    c.iterations_source = "ProfilerStep ranges in the trace";
  } else if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    c.iterations = std::max<std::int64_t>(1, std::llround(ratios[ratios.size() / 2]));
    c.iterations_source = "estimated from the counts; --iterations sets it";
  } else {
    c.iterations = 1;
    c.iterations_source = "assumed: no planned message seen; --iterations sets it";
  }
}

// One (op, elements) of a rank: planned x iterations against seen, and the dtypes.
PlanCheckRow compare_row(const Key& key, const std::map<Key, Planned>& planned, const std::map<Key, Seen>& seen,
                         std::int64_t iterations) {
  PlanCheckRow row;
  row.op = key.first;
  row.elements = key.second;
  const auto pl = planned.find(key);
  const auto sn = seen.find(key);
  if (pl != planned.end()) {
    row.planned_per_iteration = pl->second.per_iteration;
    row.expected = pl->second.per_iteration * iterations;
    row.planned_dtype = joined(pl->second.dtypes);
    row.what = pl->second.what;
  }
  if (sn != seen.end()) {
    row.seen = sn->second.count;
    row.seen_dtype = joined(sn->second.dtypes);
  }
  // A dtype mismatch: the profile names a dtype the plan does not have for this message.
  bool dtype_differs = false;
  if (pl != planned.end() && sn != seen.end()) {
    for (const auto& t : sn->second.dtypes) dtype_differs |= pl->second.dtypes.count(t) == 0;
  }
  row.status = row.expected == 0          ? "unplanned"
               : row.seen == 0            ? "missing"
               : row.seen != row.expected ? "count"
               : dtype_differs            ? "dtype"
                                          : "ok";
  return row;
}

RankCheck check_rank(int rank, const DeviceProfile& device, bool listed, const std::map<Key, Planned>& planned,
                     const std::map<Key, Seen>& seen, std::int64_t unsized, std::int64_t iterations) {
  RankCheck rc;
  rc.rank = rank;
  rc.device = device.device;
  rc.comm_share = device.share(device.comm_ns);
  rc.listed = listed;
  if (!rc.listed) return rc;
  std::set<Key> keys;
  for (const auto& [k, p] : planned) keys.insert(k);
  for (const auto& [k, sn] : seen) keys.insert(k);
  for (const auto& key : keys) {
    PlanCheckRow row = compare_row(key, planned, seen, iterations);
    if (row.status != "ok") ++rc.mismatches;
    rc.rows.push_back(std::move(row));
  }
  if (unsized > 0) {
    PlanCheckRow row;
    row.status = "unsized";
    row.op = "(collectives without sizes)";
    row.seen = unsized;
    rc.rows.push_back(row);
  }
  return rc;
}

// The check of one schedule. devices: in id order, the first one being rank first_rank.
PlanCheck check_schedule(const Schedule& s, const std::vector<const DeviceProfile*>& devices, int first_rank,
                         const std::set<int>& listed, const TraceProfile& profile, const PlanCheckOptions& o) {
  PlanCheck c;
  c.schedule = s.id;
  // Seen and planned per rank first: the iteration count may have to be estimated from them.
  std::vector<std::map<Key, Planned>> planned(devices.size());
  std::vector<std::map<Key, Seen>> seen(devices.size());
  std::vector<std::int64_t> unsized(devices.size(), 0);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    planned[i] = planned_for(s, first_rank + static_cast<int>(i));
    seen[i] = seen_on(*devices[i], &unsized[i]);
    for (const auto& [key, p] : planned[i]) {
      auto it = seen[i].find(key);
      if (it != seen[i].end() && p.per_iteration > 0) {
        ratios.push_back(static_cast<double>(it->second.count) / static_cast<double>(p.per_iteration));
      }
    }
  }
  set_iterations(c, o, profile, std::move(ratios));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const int rank = first_rank + static_cast<int>(i);
    const bool is_listed = listed.empty() || listed.count(rank) != 0;
    RankCheck rc = check_rank(rank, *devices[i], is_listed, planned[i], seen[i], unsized[i], c.iterations);
    c.mismatches += rc.mismatches;
    c.ranks.push_back(std::move(rc));
  }
  return c;
}

// --prediction: the simulated NCCL share of each rank of the chosen schedule.
void add_predicted_shares(PlanCheck& out, const Schedule& schedule, const Prediction& prediction) {
  const SchedulePrediction* ps = nullptr;
  for (const auto& s : prediction.schedules) {
    if (s.id == out.schedule) ps = &s;
  }
  if (ps == nullptr) {
    out.notes.push_back("the prediction has no " + schedule.id.key() + " schedule: no predicted share");
    return;
  }
  for (auto& r : out.ranks) {
    for (const auto& pr : ps->ranks) {
      if (pr.rank == r.rank) r.predicted_comm_share = pr.nccl_share;
    }
    if (!r.predicted_comm_share && r.listed) {
      out.notes.push_back("rank " + std::to_string(r.rank) + ": the prediction simulates another pipeline group");
    }
  }
}

}  // namespace

PlanCheck check_against_plan(const TraceProfile& profile, const Plan& plan, const Prediction* prediction,
                             const PlanCheckOptions& o) {
  // Ranks: devices in id order from the first rank (Kineto traces say theirs).
  std::vector<const DeviceProfile*> devices;
  for (const auto& d : profile.devices)
    if (d.device >= 0) devices.push_back(&d);
  const int first_rank = o.first_rank.value_or(profile.rank.value_or(0));
  const std::set<int> listed(plan.listed_ranks.begin(), plan.listed_ranks.end());

  std::vector<const Schedule*> schedules;
  std::string names;
  const ScheduleSelection selection = parse_schedule_selection("--schedule", o.schedule);
  for (const auto& s : plan.schedules) {
    names += (names.empty() ? "" : ", ") + s.id.key();
    if (selection.matches(s.id)) schedules.push_back(&s);
  }
  if (schedules.empty())
    throw UsageError("--schedule " + o.schedule + ": not a schedule of the plan (it has " + names + ")");

  std::vector<Candidate> candidates;
  for (const Schedule* s : schedules)
    candidates.push_back({s, check_schedule(*s, devices, first_rank, listed, profile, o)});
  auto best = std::min_element(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.check.mismatches < b.check.mismatches;
  });
  PlanCheck out = std::move(best->check);
  out.schedule_reason = schedules.size() > 1
                            ? "the best match of " + std::to_string(schedules.size()) + " schedules (" +
                                  std::to_string(out.mismatches) + " mismatching rows; --schedule to choose)"
                        : o.schedule.empty() ? "the plan's only schedule"
                                             : "chosen with --schedule";
  for (const auto& r : out.ranks) {
    if (!r.listed)
      out.notes.push_back("rank " + std::to_string(r.rank) + " (device " + std::to_string(r.device) +
                          ") is not listed in the plan; --first-rank sets the rank of the first device");
  }
  if (devices.empty()) out.notes.emplace_back("the profile has no device to compare");
  if (prediction != nullptr) add_predicted_shares(out, *best->schedule, *prediction);
  return out;
}

json plan_check_to_json(const PlanCheck& c) {
  json ranks = json::array();
  for (const auto& r : c.ranks) {
    json rows = json::array();
    for (const auto& row : r.rows) {
      rows.push_back({{"status", row.status},
                      {"op", row.op},
                      {"elements", row.elements >= 0 ? json(row.elements) : json(nullptr)},
                      {"planned_dtype", row.planned_dtype.empty() ? json(nullptr) : json(row.planned_dtype)},
                      {"seen_dtype", row.seen_dtype.empty() ? json(nullptr) : json(row.seen_dtype)},
                      {"planned_per_iteration", row.planned_per_iteration},
                      {"expected", row.expected},
                      {"seen", row.seen},
                      {"what", row.what}});
    }
    ranks.push_back({{"rank", r.rank},
                     {"device", r.device},
                     {"listed", r.listed},
                     {"mismatches", r.mismatches},
                     {"comm_share", r.comm_share},
                     {"predicted_comm_share", r.predicted_comm_share ? json(*r.predicted_comm_share) : json(nullptr)},
                     {"messages", rows}});
  }
  return {{"schedule", c.schedule.name},
          {"v", c.schedule.v},
          {"schedule_reason", c.schedule_reason},
          {"iterations", c.iterations},
          {"iterations_source", c.iterations_source},
          {"mismatches", c.mismatches},
          {"ranks", ranks},
          {"notes", c.notes}};
}

}  // namespace pipebench
