// SPDX-License-Identifier: Apache-2.0
// Calibration of the model from a profile of the job.
#include "trace/profile_calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/printf_string.h"
#include "core/stats.h"
#include "megatron/pipeline_split.h"
#include "schedule/schedule_registry.h"
#include "sim/schedule_build.h"
#include "trace/job_reader.h"

namespace pipebench {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double ms_of(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// A compute task of a rank's program: its pass, microbatch, chunk, and the run of tasks it belongs to (tasks
// with no P2P call between them run back to back: the profile shows them as one stretch of compute).
struct TaskRef {
  Pass pass = Pass::kForward;
  std::int64_t mb = 0;
  int chunk = 0;
  int run = 0;
  [[nodiscard]] std::string label() const {
    return pass_letter(pass) + (" mb" + std::to_string(mb)) + " c" + std::to_string(chunk);
  }
};

struct RankProgram {
  std::vector<TaskRef> tasks;
  int runs = 0;
  bool starts_with_call = false, ends_with_call = false;
  std::vector<std::pair<std::string, std::string>> after;  // the plan's collectives after the pipeline: op, label
  std::vector<std::vector<int>> after_groups;
};

std::vector<RankProgram> rank_programs(const Plan& plan, const Schedule& s) {
  ComputeModel unit;  // durations do not matter: the order does
  unit.fwd_ms_per_layer = 1;
  unit.bwd_ms_per_layer = 2;
  const ScheduleBuild b = build_schedule(plan, s, unit, ZeroCost(), false);
  std::vector<RankProgram> out(b.programs.size());
  for (std::size_t r = 0; r < b.programs.size(); ++r) {
    RankProgram& rp = out[r];
    bool call_since = false;
    for (const Task& t : b.programs[r].tasks) {
      if (t.kind == Task::Kind::kP2P && t.nops > 0) {
        call_since = true;
        if (rp.tasks.empty()) rp.starts_with_call = true;
      } else if (t.kind == Task::Kind::kCompute && t.mb >= 0) {
        if (call_since && !rp.tasks.empty()) ++rp.runs;
        call_since = false;
        rp.tasks.push_back({t.pass, t.mb, t.chunk, rp.runs});
      }
    }
    rp.runs = rp.tasks.empty() ? 0 : rp.runs + 1;
    rp.ends_with_call = call_since;
    for (const auto& m : b.after[r]) {
      rp.after.emplace_back(m.message.op.name(), m.message.what);
      std::vector<int> g = m.message.group;
      std::sort(g.begin(), g.end());
      rp.after_groups.push_back(g);
    }
  }
  return out;
}

// One pass (or a run of passes) as the profile shows it.
struct Segment {
  std::int64_t start = 0, end = 0;
  int marker = -1;  // index into the timeline's markers
};

struct Matched {
  TaskRef task;
  std::int64_t start = 0, end = 0;
  std::size_t segment = 0;  // the stretch of compute it was found in (a run's passes share one)
};

// A stretch of compute between two P2P calls, and the time the rank spent in communication calls between it
// and the stretch before.
struct Stretch {
  std::int64_t start = 0, end = 0, comm_before_ns = 0;
  std::size_t first = 0, tasks = 0;  // its passes: tasks[first, first + tasks)
};

// What one rank did in one profiled iteration.
struct RankIteration {
  std::vector<Matched> tasks;  // program order
  std::vector<Stretch> stretches;
  std::int64_t first_ns = kNever, last_ns = 0;
  std::int64_t optimizer_ns = 0;
  std::vector<std::pair<std::size_t, std::int64_t>> collectives;  // index into the plan's after list, ns
};

bool inside(const TimeSpan& window, std::int64_t t) { return t >= window.start_ns && t < window.end_ns; }

// Where the pipeline ends on this rank: the first collective the plan runs after the pipeline that starts
// after the rank's last P2P call (or kNever).
std::int64_t tail_start(const RankTimeline& t, const TimeSpan& w, const RankProgram& prog) {
  std::int64_t last_p2p = w.start_ns;
  for (const auto& c : t.comms)
    if (c.p2p && inside(w, c.at.start_ns)) last_p2p = std::max(last_p2p, c.at.end_ns);
  std::set<std::string> ops;
  for (const auto& a : prog.after) ops.insert(a.first);
  for (const auto& c : t.comms) {
    if (!c.p2p && inside(w, c.at.start_ns) && c.at.start_ns >= last_p2p && ops.count(c.op)) return c.at.start_ns;
  }
  return kNever;
}

class RankMatcher {
 public:
  RankMatcher(const RankTimeline& t, const RankProgram& prog, const ScheduleGenerator& g, const ScheduleId& id, int p,
              int r)
      : t_(t), prog_(prog), gen_(g), label_(id.label()), p_(p), v_(id.v), r_(r) {}

  // Throws UsageError naming the file when the passes are not the program's.
  RankIteration match(const TimeSpan& w, std::int64_t iteration) {
    RankIteration it;
    const std::int64_t tail = tail_start(t_, w, prog_);
    std::vector<TimeSpan> ops, tail_ops;
    std::size_t oi = 0;
    for (const auto& c : t_.compute) {
      if (!inside(w, c.start_ns)) continue;
      it.first_ns = std::min(it.first_ns, c.start_ns);
      it.last_ns = std::max(it.last_ns, c.end_ns);
      while (oi < t_.optimizer.size() && t_.optimizer[oi].end_ns <= c.start_ns) ++oi;
      const bool in_optimizer = oi < t_.optimizer.size() && t_.optimizer[oi].start_ns <= c.start_ns;
      (in_optimizer || c.start_ns >= tail ? tail_ops : ops).push_back(c);
    }
    std::vector<Segment> segs = marked_passes(w, ops);
    if (segs.empty()) {
      segs = segments(w, ops);
      trim_ends(segs, tail_ops);
    }
    std::sort(tail_ops.begin(), tail_ops.end(),
              [](const TimeSpan& a, const TimeSpan& b) { return a.start_ns < b.start_ns; });
    it.tasks = assign(segs, iteration);
    stretches(w, it);
    it.optimizer_ns = optimizer_ns(w, tail, tail_ops);
    // The plan's collectives after the pipeline, each matched to the rank's next one of that op.
    std::size_t next = 0;
    for (const auto& c : t_.comms) {
      if (c.p2p || !inside(w, c.at.start_ns) || c.at.start_ns < tail) continue;
      while (next < prog_.after.size() && prog_.after[next].first != c.op) ++next;
      if (next == prog_.after.size()) break;
      it.collectives.emplace_back(next++, c.at.ns());
    }
    return it;
  }

 private:
  // The optimizer's time: its ranges (step and zero_grad, wherever they ran), and the compute after the pipeline
  // outside them from its first operator to its last, less the collectives inside.
  std::int64_t optimizer_ns(const TimeSpan& w, std::int64_t tail, const std::vector<TimeSpan>& tail_ops) const {
    std::int64_t ns = 0;
    for (const auto& o : t_.optimizer)
      if (inside(w, o.start_ns)) ns += o.ns();
    std::int64_t first = kNever, last = 0;
    std::size_t oi = 0;
    for (const auto& op : tail_ops) {
      while (oi < t_.optimizer.size() && t_.optimizer[oi].end_ns <= op.start_ns) ++oi;
      if (oi < t_.optimizer.size() && t_.optimizer[oi].start_ns <= op.start_ns) continue;
      first = std::min(first, op.start_ns);
      last = std::max(last, op.end_ns);
    }
    if (first >= last) return ns;
    std::int64_t coll = 0;
    for (const auto& c : t_.comms)
      if (!c.p2p && c.at.start_ns >= first && c.at.end_ns <= last && c.at.start_ns >= tail) coll += c.at.ns();
    return ns + std::max<std::int64_t>(0, last - first - coll);
  }

  // With PyTorch pipelining's action ranges: one pass per range of a compute action (F, B, I, W), its compute
  // the operators inside it (a range with none, as the first stage's input gradient, is a pass of no time at
  // its start); compute outside them (splitting the batch, merging the outputs) is the framework's. Empty
  // without such ranges.
  std::vector<Segment> marked_passes(const TimeSpan& w, const std::vector<TimeSpan>& ops) const {
    std::vector<Segment> out;
    std::size_t oi = 0;
    for (std::size_t m = 0; m < t_.markers.size(); ++m) {
      const TimeSpan& at = t_.markers[m].at;
      if (!inside(w, at.start_ns)) continue;
      while (oi < ops.size() && ops[oi].start_ns < at.start_ns) ++oi;
      Segment s{at.start_ns, at.start_ns, static_cast<int>(m)};
      bool any = false;
      for (std::size_t k = oi; k < ops.size() && ops[k].start_ns < at.end_ns; ++k) {
        if (!any) s.start = ops[k].start_ns;
        s.end = std::max(s.end, ops[k].end_ns);
        any = true;
      }
      if (!any) s.end = s.start;
      out.push_back(s);
    }
    return out;
  }

  // Compute split where a P2P call starts between two operators.
  std::vector<Segment> segments(const TimeSpan& w, const std::vector<TimeSpan>& ops) {
    std::vector<Segment> segs;
    std::vector<std::int64_t> calls;
    for (const auto& c : t_.comms)
      if (c.p2p && inside(w, c.at.start_ns)) calls.push_back(c.at.start_ns);
    std::size_t ci = 0;
    std::int64_t prev = w.start_ns - 1;
    for (const auto& op : ops) {
      bool split = segs.empty();
      while (ci < calls.size() && calls[ci] <= op.start_ns) split |= calls[ci++] > prev;
      if (split) {
        segs.push_back({op.start_ns, op.end_ns, -1});
      } else {
        segs.back().end = std::max(segs.back().end, op.end_ns);
      }
      prev = op.start_ns;
    }
    first_call_ = calls.empty() ? kNever : calls.front();
    last_call_ = calls.empty() ? -1 : calls.back();
    return segs;
  }

  // Compute before the rank's first call where its program starts with one (the framework's own work before
  // the schedule: splitting the batch) is no pass; compute after the last call where the program ends with
  // one is the rank's tail (its optimizer).
  void trim_ends(std::vector<Segment>& segs, std::vector<TimeSpan>& tail_ops) const {
    if (prog_.starts_with_call) {
      const auto keep =
          std::find_if(segs.begin(), segs.end(), [this](const Segment& s) { return s.end > first_call_; });
      segs.erase(segs.begin(), keep);
    }
    if (prog_.ends_with_call) {
      while (!segs.empty() && segs.back().start > last_call_) {
        tail_ops.push_back({segs.back().start, segs.back().end});
        segs.pop_back();
      }
    }
  }

  // The stretches of the matched passes, with the communication calls' time between each and the one before
  // (the union of the calls' spans inside the gap).
  void stretches(const TimeSpan& w, RankIteration& it) const {
    for (std::size_t i = 0; i < it.tasks.size(); ++i) {
      const Matched& m = it.tasks[i];
      if (it.stretches.empty() || it.tasks[i - 1].segment != m.segment) {
        it.stretches.push_back({m.start, m.end, 0, i, 0});
      }
      Stretch& s = it.stretches.back();
      s.end = std::max(s.end, m.end);
      ++s.tasks;
    }
    std::size_t ci = 0;
    for (std::size_t k = 1; k < it.stretches.size(); ++k) {
      const std::int64_t from = it.stretches[k - 1].end, to = it.stretches[k].start;
      std::int64_t covered = from, sum = 0;
      while (ci < t_.comms.size() && t_.comms[ci].at.end_ns <= from) ++ci;
      for (std::size_t j = ci; j < t_.comms.size() && t_.comms[j].at.start_ns < to; ++j) {
        if (!inside(w, t_.comms[j].at.start_ns)) continue;
        const std::int64_t a = std::max(covered, t_.comms[j].at.start_ns), b = std::min(to, t_.comms[j].at.end_ns);
        if (b > a) sum += b - a;
        covered = std::max(covered, b);
      }
      it.stretches[k].comm_before_ns = sum;
    }
  }

  [[noreturn]] void mismatch(const std::string& what, std::int64_t iteration) const {
    throw UsageError(t_.path + ": " + what + " in profiled iteration " + std::to_string(iteration + 1) +
                     " on pipeline rank " + std::to_string(r_) + " (another schedule, or another number of " +
                     "microbatches or stages than the plan's?)");
  }

  double weight(const TaskRef& t) const {
    if (t.pass == Pass::kForward) return 1;
    return gen_.splits_backward() ? 1 : 2;
  }

  std::vector<Matched> assign(const std::vector<Segment>& segs, std::int64_t iteration) const {
    const auto& tasks = prog_.tasks;
    std::vector<Matched> out;
    if (!segs.empty() && segs.front().marker >= 0) return by_marker(segs, iteration);
    if (segs.size() == tasks.size()) {
      for (std::size_t i = 0; i < tasks.size(); ++i) out.push_back({tasks[i], segs[i].start, segs[i].end, i});
      return out;
    }
    if (segs.size() != static_cast<std::size_t>(prog_.runs)) {
      mismatch(std::to_string(segs.size()) + " stretches of compute between P2P calls where the schedule " + label_ +
                   " runs " + std::to_string(tasks.size()) + " passes in " + std::to_string(prog_.runs) + " runs",
               iteration);
    }
    std::size_t i = 0;
    for (std::size_t si = 0; si < segs.size(); ++si) {
      const Segment& s = segs[si];
      const std::size_t from = i;
      double total = 0;
      while (i < tasks.size() && tasks[i].run == tasks[from].run) total += weight(tasks[i++]);
      double at = static_cast<double>(s.start);
      const double span = static_cast<double>(s.end - s.start);
      for (std::size_t k = from; k < i; ++k) {
        const double next = at + span * weight(tasks[k]) / total;
        out.push_back({tasks[k], std::llround(at), std::llround(next), si});
        at = next;
      }
    }
    return out;
  }

  // PyTorch pipelining's action ranges name each pass: its stage (the chunk on this rank), pass and microbatch.
  std::vector<Matched> by_marker(const std::vector<Segment>& segs, std::int64_t iteration) const {
    std::map<std::tuple<int, std::int64_t, int>, std::size_t> index;  // pass, mb, chunk -> task
    for (std::size_t i = 0; i < prog_.tasks.size(); ++i) {
      const auto& t = prog_.tasks[i];
      index[{static_cast<int>(t.pass), t.mb, t.chunk}] = i;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> at(prog_.tasks.size(), {-1, -1});
    for (const Segment& s : segs) {
      const PassMarker& m = t_.markers[static_cast<std::size_t>(s.marker)];
      int chunk = -1;
      for (int c = 0; c < v_; ++c)
        if (placed_stage(gen_.placement(), p_, r_, c) == m.stage) chunk = c;
      const Pass pass = m.pass == 'F' ? Pass::kForward : m.pass == 'W' ? Pass::kWeight : Pass::kBackward;
      const auto it = index.find({static_cast<int>(pass), m.microbatch, chunk});
      if (it == index.end()) {
        mismatch(std::string("pass ") + m.pass + " of stage " + std::to_string(m.stage) + ", microbatch " +
                     std::to_string(m.microbatch) + " is not the schedule " + label_ + "'s",
                 iteration);
      }
      auto& a = at[it->second];
      a = a.first < 0 ? std::make_pair(s.start, s.end) : std::make_pair(a.first, std::max(a.second, s.end));
    }
    std::vector<Matched> out;
    for (std::size_t i = 0; i < prog_.tasks.size(); ++i) {
      if (at[i].first < 0)
        mismatch("no pass " + prog_.tasks[i].label() + " (the schedule " + label_ + "'s)", iteration);
      out.push_back({prog_.tasks[i], at[i].first, at[i].second, 0});
    }
    std::sort(out.begin(), out.end(), [](const Matched& a, const Matched& b) { return a.start < b.start; });
    for (std::size_t i = 0; i < out.size(); ++i) out[i].segment = i;
    return out;
  }

  const RankTimeline& t_;
  const RankProgram& prog_;
  const ScheduleGenerator& gen_;
  std::string label_;
  int p_, v_, r_;
  std::int64_t first_call_ = kNever, last_call_ = -1;
};

// P2P transfers cost what the profile measured; the collectives after the pipeline what the fastest member
// measured, and one the profile did not run at this size (interleaving splits the DP gradients per chunk) from
// the same op on groups of the same size at the sizes it did run: linear in bytes between them, and past them
// along the line through the two nearest (or in proportion to the bytes, from one size); everything else
// (collectives inside the passes, collectives the job does not run) nothing.
class ProfileCost final : public CostModel {
 public:
  ProfileCost(SimTime p2p_ns, std::string p2p_source) : p2p_ns_(p2p_ns), p2p_source_(std::move(p2p_source)) {}
  void add(const std::string& op, const std::vector<int>& ranks, std::int64_t bytes, SimTime ns) {
    collectives_[{op, ranks, bytes}] = ns;
    auto& pts = by_size_[{op, ranks.size()}];
    pts.emplace_back(static_cast<double>(bytes), static_cast<double>(ns));
    std::sort(pts.begin(), pts.end());
  }
  CommCost cost(const Op& known, const std::vector<int>& ranks, std::int64_t bytes) const override {
    if (known.traits().is_transfer) return {p2p_ns_, p2p_source_};
    const std::string op(known.name());
    const auto it = collectives_.find({op, ranks, bytes});
    if (it != collectives_.end()) return {it->second, "profile: collectives after the pipeline as measured"};
    const auto pts = by_size_.find({op, ranks.size()});
    if (pts != by_size_.end()) {
      return {static_cast<SimTime>(std::llround(std::max(0.0, along(pts->second, static_cast<double>(bytes))))),
              "profile: collectives at other sizes, by their bytes"};
    }
    return {0, "profile: not there (inside the measured passes, or not run by the job)"};
  }

 private:
  static double along(const std::vector<std::pair<double, double>>& pts, double bytes) {
    if (pts.size() == 1)
      return pts.front().first > 0 ? pts.front().second * bytes / pts.front().first : pts.front().second;
    std::size_t hi = 1;
    while (hi + 1 < pts.size() && pts[hi].first < bytes) ++hi;
    const auto& [x0, y0] = pts[hi - 1];
    const auto& [x1, y1] = pts[hi];
    if (x1 <= x0) return y1;
    return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
  }

  SimTime p2p_ns_;
  std::string p2p_source_;
  std::map<std::tuple<std::string, std::vector<int>, std::int64_t>, SimTime> collectives_;
  std::map<std::pair<std::string, std::size_t>, std::vector<std::pair<double, double>>> by_size_;  // bytes, ns
};

// The pipeline group's ranks, each with its file: distributedInfo's rank, else the one the file name states,
// else the files' order.
std::vector<const RankTimeline*> by_pipeline_rank(const Plan& plan, const std::vector<RankTimeline>& timelines) {
  std::map<int, const RankTimeline*> of_rank;
  for (std::size_t i = 0; i < timelines.size(); ++i) {
    const RankTimeline& t = timelines[i];
    if (t.world_size && *t.world_size != plan.layout.world) {
      throw UsageError("--profile " + t.path + ": a job of " + std::to_string(*t.world_size) +
                       " ranks, the plan's has " + std::to_string(plan.layout.world));
    }
    const int rank = t.rank ? *t.rank : rank_from_file_name(t.path).value_or(static_cast<int>(i));
    const auto [it, fresh] = of_rank.emplace(rank, &t);
    if (!fresh)
      throw UsageError("--profile: " + it->second->path + " and " + t.path + " are both rank " + std::to_string(rank));
  }
  std::vector<const RankTimeline*> out;
  std::vector<int> missing;
  for (int g : plan.layout.pp_groups.front()) {
    const auto it = of_rank.find(g);
    if (it == of_rank.end()) {
      missing.push_back(g);
    } else {
      out.push_back(it->second);
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(missing[i]);
    if (missing.size() > 8) list += ", ... (" + std::to_string(missing.size()) + " in all)";
    throw UsageError("--profile: no profile of rank " + list + " of the plan's first pipeline group (" +
                     std::to_string(timelines.size()) + (timelines.size() == 1 ? " file" : " files") + " given)");
  }
  return out;
}

// The profiled iterations: ProfilerStep ranges, as many as every rank has; else each whole profile as one.
std::vector<std::vector<TimeSpan>> iteration_windows(const std::vector<const RankTimeline*>& ranks) {
  std::size_t n = kNever;
  for (const auto* t : ranks) n = std::min(n, t->steps.size());
  std::vector<std::vector<TimeSpan>> out(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (n == 0) {
      out[r].push_back({std::numeric_limits<std::int64_t>::min() / 2, std::numeric_limits<std::int64_t>::max() / 2});
    } else {
      // The last n steps of each rank: the ones every rank profiled to the end.
      out[r].assign(ranks[r]->steps.end() - static_cast<std::ptrdiff_t>(n), ranks[r]->steps.end());
    }
  }
  return out;
}

struct Samples {
  std::vector<double> fwd, bwd, wgt, gap;  // per layer (ms), gap: unforced gaps (ms)
  std::vector<double> optimizer;
  std::size_t passes = 0;
};

class Calibrator {
 public:
  Calibrator(const Plan& plan, const PlannedSchedule& ps, const std::vector<const RankTimeline*>& ranks)
      : plan_(plan), sched_(ps.to_run()), gen_(schedule_generator(ps.id)), ranks_(ranks) {
    progs_ = rank_programs(plan, sched_);
  }

  // Every rank of every profiled iteration matched; throws UsageError at the first mismatch.
  void match() {
    const auto windows = iteration_windows(ranks_);
    iters_.assign(windows.front().size(), std::vector<RankIteration>(ranks_.size()));
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      RankMatcher m(*ranks_[r], progs_[r], gen_, sched_.id, plan_.layout.pp, static_cast<int>(r));
      for (std::size_t k = 0; k < windows[r].size(); ++k)
        iters_[k][r] = m.match(windows[r][k], static_cast<std::int64_t>(k));
    }
  }

  Calibration calibrate(const CalibrationOptions& o) {
    Calibration c;
    c.schedule = sched_.id;
    c.iterations = static_cast<std::int64_t>(iters_.size());
    c.ranks = plan_.layout.pp_groups.front();
    const bool aligned = std::all_of(ranks_.begin(), ranks_.end(), [](const auto* t) { return t->aligned; });
    const std::size_t p = ranks_.size();
    // 1. Each rank's host time per pass, from the gaps between its stretches of compute where it waited for
    //    nobody (passes of one stretch split by a first guess: the producers' ends only decide who waited).
    std::vector<Samples> s(p);
    for (const auto& it : iters_) gaps(it, aligned, s);
    std::vector<double> all_gaps;
    for (const auto& x : s) all_gaps.insert(all_gaps.end(), x.gap.begin(), x.gap.end());
    const double gap_all = median(all_gaps);
    std::vector<double> host(p);
    for (std::size_t r = 0; r < p; ++r) host[r] = s[r].gap.empty() ? gap_all : median(s[r].gap);
    // 2. Passes that run back to back (no call between) split by the layers they run at the per-layer times of
    //    the passes that ran alone, their host time between them.
    const PerLayer alone = per_layer_alone();
    for (auto& it : iters_)
      for (std::size_t r = 0; r < p; ++r) resplit(it[r], r, host[r], alone);
    // Whether the job's sends hold its ranks (Megatron's batched calls) or not (PyTorch pipelining).
    const double slack_ms = std::max(0.1, 2 * *std::max_element(host.begin(), host.end()));
    const auto [ahead, late] = sends_ahead(aligned, static_cast<std::int64_t>(slack_ms * 1e6));
    c.compute.sends_block = !(ahead >= 2 && ahead * 10 >= late);
    c.notes.push_back(printf_string(
        "sends %s their ranks: of %zu passes whose receiver was not yet ready, the rank went on before it was in %zu%s",
        c.compute.sends_block ? "hold" : "do not hold", late, ahead,
        c.compute.sends_block ? "" : " (every schedule simulated with sends posted and never waited for)"));
    // 3. Per-layer times and the transfers, from the passes as split.
    std::vector<std::pair<double, int>> forced;  // latency ms, sender rank
    for (const auto& it : iters_) collect(it, aligned, s, forced);
    c.compute.source = "measured per rank from the profile (--profile)";
    std::vector<double> fwd, bwd;
    for (std::size_t r = 0; r < p; ++r) {
      c.compute.ranks.push_back(rank_compute(r, s[r], host[r], o, c));
      fwd.push_back(c.compute.ranks.back().fwd_ms_per_layer);
      bwd.push_back(c.compute.ranks.back().bwd_ms_per_layer);
    }
    // The uniform figures a prediction prints: the ranks' medians. Each rank simulates with its own.
    c.compute.fwd_ms_per_layer = median(fwd);
    c.compute.bwd_ms_per_layer = median(bwd);
    c.compute.w_share = c.compute.ranks.front().w_share;
    c.compute.output_layer_fwd_ms = c.compute.fwd_ms_per_layer * output_layer_ratio(plan_);
    std::vector<double> lat;
    for (const auto& [ms, sender] : forced) lat.push_back(std::max(0.0, ms - host[static_cast<std::size_t>(sender)]));
    const double p2p_ms = median(lat);
    const std::string p2p_source =
        lat.empty() ? "profile: no pass waited for a transfer (P2P costs nothing beside the host time)"
                    : printf_string("profile: P2P %.1f us (median of %zu passes that waited for their input)",
                                    p2p_ms * 1e3, lat.size());
    c.terms.push_back({"P2P transfer", -1, p2p_ms, p2p_source});
    if (!aligned) {
      c.notes.push_back(
          "the profiles have no common clock (no baseTimeNanoseconds): the transfer is not told apart "
          "from the host time");
    }
    auto costs = std::make_shared<ProfileCost>(checked_ns_from_ms(p2p_ms, "the profile's P2P transfer"), p2p_source);
    add_collectives(*costs, c);
    c.costs = costs;
    measured_iteration(c);
    return c;
  }

 private:
  struct PerLayer {
    double fwd = 1, bwd = 2, wgt = 1;
  };

  int stage_of(std::size_t r, int chunk) const {
    return placed_stage(gen_.placement(), plan_.layout.pp, static_cast<int>(r), chunk);
  }
  int rank_of_stage(int stage) const {
    const int p = plan_.layout.pp;
    for (int r = 0; r < p; ++r)
      for (int c = 0; c < sched_.id.v; ++c)
        if (stage_of(static_cast<std::size_t>(r), c) == stage) return r;
    return -1;
  }
  // The layers a pass of this stage runs, the output layer counted by its FLOPs.
  double layers(int stage, Pass pass) const {
    const int p = plan_.layout.pp, v = sched_.id.v;
    const int n = chunk_layer_range(plan_.args, p, stage % p, stage / p, v).count;
    const bool last = stage == p * v - 1;
    return n + (last ? (pass == Pass::kForward ? 1 : 2) * output_layer_ratio(plan_) : 0);
  }
  // The pass that produced this pass's input on another rank: the forward of the stage before, the backward of
  // the stage after; -1 for none (the first stage's forward, the last stage's backward, W).
  int producer_stage(const TaskRef& t, int stage) const {
    if (t.pass == Pass::kForward) return stage > 0 ? stage - 1 : -1;
    if (t.pass == Pass::kBackward) return stage < plan_.layout.pp * sched_.id.v - 1 ? stage + 1 : -1;
    return -1;
  }
  using EndOf = std::map<std::tuple<int, std::int64_t, int>, std::int64_t>;  // pass, mb, stage -> end
  EndOf ends(const std::vector<RankIteration>& it) const {
    EndOf end_of;
    for (std::size_t r = 0; r < it.size(); ++r)
      for (const auto& m : it[r].tasks)
        end_of[{static_cast<int>(m.task.pass), m.task.mb, stage_of(r, m.task.chunk)}] = m.end;
    return end_of;
  }
  // Whether the pass waited for its input: its producer ended after the rank was ready for it. nullopt when
  // that cannot be told (no common clock, no producer seen).
  std::optional<std::int64_t> waited_for(const EndOf& end_of, std::size_t r, const Matched& m, std::int64_t ready,
                                         bool aligned) const {
    const int producer = producer_stage(m.task, stage_of(r, m.task.chunk));
    if (producer < 0 || !aligned) return std::nullopt;
    const auto pe = end_of.find({static_cast<int>(m.task.pass), m.task.mb, producer});
    if (pe == end_of.end() || pe->second <= ready || m.start < pe->second) return std::nullopt;
    return pe->second;
  }

  // Of the passes whose output's receiver was not ready for it when they ended (its pass before the receiving
  // one ended later, so it could not have posted the receive): how many, and after how many of them the rank
  // started its next pass before the receiver was ready (a send that held the rank would not let it). Passes
  // followed by no call, and a slack for the host time, are left out.
  std::pair<std::size_t, std::size_t> sends_ahead(bool aligned, std::int64_t slack) const {
    std::size_t ahead = 0, late = 0;
    if (!aligned) return {0, 0};
    const int stages = plan_.layout.pp * sched_.id.v;
    for (const auto& it : iters_) {
      EndOf ready_of;  // pass, mb, stage -> the end of the rank's pass before it
      for (std::size_t r = 0; r < it.size(); ++r) {
        const auto& tasks = it[r].tasks;
        for (std::size_t i = 1; i < tasks.size(); ++i)
          ready_of[{static_cast<int>(tasks[i].task.pass), tasks[i].task.mb, stage_of(r, tasks[i].task.chunk)}] =
              tasks[i - 1].end;
      }
      for (std::size_t r = 0; r < it.size(); ++r) {
        const auto& tasks = it[r].tasks;
        for (std::size_t i = 0; i + 1 < tasks.size(); ++i) {
          const Matched& m = tasks[i];
          if (tasks[i + 1].segment == m.segment || m.task.pass == Pass::kWeight) continue;
          const int stage = stage_of(r, m.task.chunk);
          const int to = m.task.pass == Pass::kForward ? stage + 1 : stage - 1;
          if (to < 0 || to >= stages) continue;
          const auto c = ready_of.find({static_cast<int>(m.task.pass), m.task.mb, to});
          if (c == ready_of.end() || c->second <= m.end + slack) continue;
          ++late;
          if (tasks[i + 1].start + slack < c->second) ++ahead;
        }
      }
    }
    return {ahead, late};
  }

  // Host-time samples: each gap between two stretches of a rank where the next pass did not wait for its input,
  // less the time the rank spent in communication calls inside it.
  void gaps(const std::vector<RankIteration>& it, bool aligned, std::vector<Samples>& s) const {
    const EndOf end_of = ends(it);
    for (std::size_t r = 0; r < it.size(); ++r) {
      const auto& st = it[r].stretches;
      for (std::size_t k = 1; k < st.size(); ++k) {
        const Matched& m = it[r].tasks[st[k].first];
        const std::int64_t ready = st[k - 1].end;
        const int producer = producer_stage(m.task, stage_of(r, m.task.chunk));
        if (waited_for(end_of, r, m, ready, aligned) || (!aligned && producer >= 0)) continue;
        s[r].gap.push_back(ms_of(std::max<std::int64_t>(0, st[k].start - ready - st[k].comm_before_ns)));
      }
    }
  }

  // Per-layer times of the passes that ran alone in their stretch, over every rank and iteration.
  PerLayer per_layer_alone() const {
    std::vector<double> f, b, w;
    for (const auto& it : iters_) {
      for (std::size_t r = 0; r < it.size(); ++r) {
        for (const auto& st : it[r].stretches) {
          if (st.tasks != 1) continue;
          const Matched& m = it[r].tasks[st.first];
          const double n = layers(stage_of(r, m.task.chunk), m.task.pass);
          if (n <= 0) continue;
          (m.task.pass == Pass::kForward  ? f
           : m.task.pass == Pass::kWeight ? w
                                          : b)
              .push_back(ms_of(m.end - m.start) / n);
        }
      }
    }
    PerLayer out;
    if (gen_.splits_backward()) out.bwd = 1;
    if (!f.empty()) out.fwd = median(f);
    if (!b.empty()) out.bwd = median(b);
    if (!w.empty()) out.wgt = median(w);
    return out;
  }

  // A stretch of several passes: each gets its layers' share at the per-layer times of the passes that ran
  // alone, of the stretch less the rank's host time between them.
  void resplit(RankIteration& it, std::size_t r, double host_ms, const PerLayer& alone) const {
    const auto host = static_cast<double>(std::llround(host_ms * 1e6));
    for (const auto& st : it.stretches) {
      if (st.tasks < 2) continue;
      std::vector<double> nominal;
      double total = 0;
      for (std::size_t i = st.first; i < st.first + st.tasks; ++i) {
        const TaskRef& t = it.tasks[i].task;
        const double per = t.pass == Pass::kForward ? alone.fwd : t.pass == Pass::kWeight ? alone.wgt : alone.bwd;
        nominal.push_back(std::max(layers(stage_of(r, t.chunk), t.pass), 1e-3) * per);
        total += nominal.back();
      }
      const double gaps = host * static_cast<double>(st.tasks - 1);
      const double span = static_cast<double>(st.end - st.start);
      const double busy = span - gaps > 0.5 * span ? span - gaps : span;  // host time never takes half the stretch
      const double between = (span - busy) / static_cast<double>(st.tasks - 1);
      double at = static_cast<double>(st.start);
      for (std::size_t i = 0; i < st.tasks; ++i) {
        Matched& m = it.tasks[st.first + i];
        m.start = std::llround(at);
        at += busy * nominal[i] / total;
        m.end = std::llround(at);
        at += between;
      }
    }
  }

  void collect(const std::vector<RankIteration>& it, bool aligned, std::vector<Samples>& s,
               std::vector<std::pair<double, int>>& forced) const {
    const EndOf end_of = ends(it);
    for (std::size_t r = 0; r < it.size(); ++r) {
      const auto& tasks = it[r].tasks;
      s[r].optimizer.push_back(ms_of(it[r].optimizer_ns));
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const Matched& m = tasks[i];
        const int stage = stage_of(r, m.task.chunk);
        const double n = layers(stage, m.task.pass);
        auto& bucket = m.task.pass == Pass::kForward ? s[r].fwd : m.task.pass == Pass::kWeight ? s[r].wgt : s[r].bwd;
        if (n > 0) bucket.push_back(ms_of(m.end - m.start) / n);
        ++s[r].passes;
        if (i == 0 || tasks[i - 1].segment == m.segment) continue;
        if (const auto pe = waited_for(end_of, r, m, tasks[i - 1].end, aligned))
          forced.emplace_back(ms_of(m.start - *pe), rank_of_stage(producer_stage(m.task, stage)));
      }
    }
  }

  RankCompute rank_compute(std::size_t r, const Samples& s, double host_ms, const CalibrationOptions& o,
                           Calibration& c) const {
    const std::string file = ranks_[r]->path;
    const int g = plan_.layout.pp_groups.front()[r];
    const std::string src = printf_string("%s: %zu passes over %zu iteration%s", file.c_str(), s.passes, iters_.size(),
                                          iters_.size() == 1 ? "" : "s");
    if (s.fwd.empty() || s.bwd.empty())
      throw UsageError("--profile " + file + ": no forward or no backward pass with layers to time");
    RankCompute rc;
    // Means: an iteration is a sum of passes, and the mean is what a sum of passes takes per pass.
    rc.fwd_ms_per_layer = mean(s.fwd);
    const double b = mean(s.bwd), w = mean(s.wgt);
    rc.bwd_ms_per_layer = b + w;
    rc.w_share = s.wgt.empty() ? o.w_share.value_or(0.5) : w / (b + w);
    rc.pass_overhead_ms = host_ms;
    rc.optimizer_ms = median(s.optimizer);
    c.terms.push_back({"forward per layer", g, rc.fwd_ms_per_layer, src});
    c.terms.push_back({"backward per layer", g, rc.bwd_ms_per_layer, src});
    if (!s.wgt.empty()) c.terms.push_back({"W share of the backward", g, rc.w_share, src});
    c.terms.push_back({"host time per pass", g, rc.pass_overhead_ms,
                       s.gap.empty() ? file + ": no gap where the rank waited for nobody; the median of every rank's"
                                     : printf_string("%s: median of %zu gap%s between passes that waited for nobody",
                                                     file.c_str(), s.gap.size(), s.gap.size() == 1 ? "" : "s")});
    c.terms.push_back({"optimizer", g, rc.optimizer_ms, src});
    if (s.wgt.empty() && r == 0) {
      c.notes.push_back(
          printf_string("W's share of the backward is not in a profile of %s (it runs B and W together): "
                        "%.2f%s for the schedules that split them. Nor is what a W pass of its own costs beyond "
                        "the fused backward (a framework may run a second backward pass for it): those schedules "
                        "are predicted with B + W = the measured backward, a lower bound; a profile of a schedule "
                        "that splits them measures both",
                        sched_.id.name.c_str(), rc.w_share, o.w_share ? " (--w-share)" : " (default)"));
    }
    return rc;
  }

  void add_collectives(ProfileCost& costs, Calibration& c) const {
    // label, group -> per iteration, the fastest member's time
    std::map<std::pair<std::string, std::vector<int>>, std::vector<double>> fastest;
    std::map<std::pair<std::string, std::vector<int>>, std::pair<std::string, std::int64_t>> what;
    const Schedule& s = sched_;
    for (const auto& it : iters_) {
      std::map<std::pair<std::string, std::vector<int>>, std::int64_t> best;
      for (std::size_t r = 0; r < it.size(); ++r) {
        for (const auto& [i, ns] : it[r].collectives) {
          const auto key = std::make_pair(progs_[r].after[i].second, progs_[r].after_groups[i]);
          const auto [b, fresh] = best.emplace(key, ns);
          if (!fresh) b->second = std::min(b->second, ns);
        }
      }
      for (const auto& [key, ns] : best) fastest[key].push_back(ms_of(ns));
    }
    for (const auto& m : s.messages) {
      if (m.phase != Phase::kAfter) continue;
      std::vector<int> g = m.group;
      std::sort(g.begin(), g.end());
      what[{m.what, g}] = {std::string(m.op.name()), m.bytes};
    }
    std::set<std::string> absent;
    for (const auto& [key, info] : what) {
      const auto it = fastest.find(key);
      if (it == fastest.end()) {
        absent.insert(key.first);
        continue;
      }
      const double ms = median(it->second);
      costs.add(info.first, key.second, info.second, checked_ns_from_ms(ms, "the profile's " + key.first));
      std::string group;
      for (const int g : key.second) group += (group.empty() ? "" : ",") + std::to_string(g);
      c.terms.push_back(
          {key.first + " (" + info.first + " of ranks " + group + ")", -1, ms,
           printf_string("profile: the fastest member's time, median of %zu iterations", it->second.size())});
    }
    if (!absent.empty()) {
      std::string list;
      for (const auto& label : absent) list += (list.empty() ? "" : "; ") + label;
      c.notes.push_back("not in the profile, so not simulated (the job does not run them): " + list);
    }
    // The plan as the job runs it: a collective after the pipeline stays where the profile showed that op on
    // that group (under any label: interleaving reduces each chunk's gradients apart); the others go, so that
    // a collective the job never runs does not hold its members together at the end of the simulation.
    std::set<std::pair<std::string, std::vector<int>>> seen;
    for (const auto& [key, info] : what)
      if (fastest.count(key)) seen.insert({info.first, key.second});
    c.plan = plan_;
    for (auto& sched : c.plan.schedules) {
      auto& msgs = sched.messages;
      msgs.erase(std::remove_if(msgs.begin(), msgs.end(),
                                [&seen](const PlanMessage& m) {
                                  if (m.phase != Phase::kAfter) return false;
                                  std::vector<int> g = m.group;
                                  std::sort(g.begin(), g.end());
                                  return !seen.count({std::string(m.op.name()), g});
                                }),
                 msgs.end());
    }
  }

  void measured_iteration(Calibration& c) const {
    std::vector<double> iteration;
    const std::size_t p = ranks_.size();
    std::vector<std::vector<double>> ends(p), compute(p);
    for (const auto& it : iters_) {
      std::int64_t start = kNever, end = 0;
      for (const auto& r : it) {
        start = std::min(start, r.first_ns);
        end = std::max(end, r.last_ns);
      }
      iteration.push_back(ms_of(end - start));
      for (std::size_t r = 0; r < p; ++r) {
        ends[r].push_back(ms_of(it[r].last_ns - start));
        std::int64_t busy = it[r].optimizer_ns;
        for (const auto& m : it[r].tasks) busy += m.end - m.start;
        compute[r].push_back(ms_of(busy));
      }
      if (c.passes.empty()) {
        c.passes.resize(p);
        for (std::size_t r = 0; r < p; ++r)
          for (const auto& m : it[r].tasks)
            c.passes[r].push_back({m.task.label(), ms_of(m.start - start), ms_of(m.end - m.start)});
      }
    }
    c.iteration_ms = median(iteration);
    const auto [lo, hi] = std::minmax_element(iteration.begin(), iteration.end());
    c.spread = c.iteration_ms > 0 ? (*hi - *lo) / c.iteration_ms : 0;
    for (std::size_t r = 0; r < p; ++r) {
      c.end_ms.push_back(median(ends[r]));
      c.compute_ms.push_back(median(compute[r]));
    }
  }

  const Plan& plan_;
  Schedule sched_;
  const ScheduleGenerator& gen_;
  std::vector<const RankTimeline*> ranks_;
  std::vector<RankProgram> progs_;
  std::vector<std::vector<RankIteration>> iters_;  // [iteration][pipeline rank]
};

}  // namespace

Calibration calibrate(const Plan& plan, const std::vector<RankTimeline>& timelines, const CalibrationOptions& o) {
  if (plan.layout.pp_groups.empty() || plan.schedules.empty())
    throw UsageError("plan without pipeline groups or schedules");
  if (timelines.empty()) throw UsageError("--profile: no profile given");
  const auto ranks = by_pipeline_rank(plan, timelines);
  const ScheduleSelection selection = parse_schedule_selection("--profile-schedule", o.schedule);
  std::vector<PlannedSchedule> candidates = selected_schedules(plan, selection);
  if (!o.schedule.empty() && candidates.size() != 1) {
    throw UsageError("--profile-schedule " + o.schedule + ": names " + std::to_string(candidates.size()) +
                     " schedules of this plan (it has " + schedule_names(plan) + "); name one");
  }
  std::string first_error;
  for (const PlannedSchedule& ps : candidates) {
    Calibrator cal(plan, ps, ranks);
    try {
      cal.match();
    } catch (const UsageError& e) {
      if (first_error.empty()) first_error = e.what();
      if (!o.schedule.empty()) throw;
      continue;
    }
    Calibration c = cal.calibrate(o);
    c.schedule_reason = o.schedule.empty() ? "its passes match the profile" : "--profile-schedule";
    if (timelines.size() > ranks.size()) {
      c.notes.push_back(std::to_string(timelines.size() - ranks.size()) +
                        " profiles of ranks outside the plan's first pipeline group not used (the model simulates "
                        "that group; its data-parallel peers run the same)");
    }
    return c;
  }
  throw UsageError("--profile: the passes match none of the plan's schedules (" + schedule_names(plan) +
                   "); with the first: " + first_error);
}

ProfileCheck check_profiled(const Calibration& c, const SchedulePrediction& sim) {
  ProfileCheck out;
  out.schedule = c.schedule;
  out.iterations = c.iterations;
  out.measured_ms = c.iteration_ms;
  out.simulated_ms = sim.iteration_ms;
  const std::size_t p = c.ranks.size();
  std::vector<std::map<std::string, double>> sim_start(p);
  for (const auto& e : sim.sim.trace) {
    if (e.track != "compute" || e.rank < 0 || static_cast<std::size_t>(e.rank) >= p) continue;
    sim_start[static_cast<std::size_t>(e.rank)].emplace(e.name, static_cast<double>(e.start) / 1e6);
  }
  for (std::size_t r = 0; r < p; ++r) {
    ProfileCheck::Rank row;
    row.rank = c.ranks[r];
    row.measured_end_ms = c.end_ms[r];
    row.measured_compute_ms = c.compute_ms[r];
    if (r < sim.sim.ranks.size()) {
      const double host = c.compute.ranks[r].pass_overhead_ms * static_cast<double>(c.passes[r].size());
      row.simulated_end_ms = static_cast<double>(sim.sim.ranks[r].end) / 1e6;
      row.simulated_compute_ms = static_cast<double>(sim.sim.ranks[r].compute) / 1e6 - host;
    }
    out.ranks.push_back(row);
    for (const auto& m : c.passes[r]) {
      const auto it = sim_start[r].find(m.task);
      if (it != sim_start[r].end()) out.largest.push_back({c.ranks[r], m.task, m.start_ms, it->second});
    }
  }
  std::sort(out.largest.begin(), out.largest.end(), [](const auto& a, const auto& b) {
    return std::abs(a.simulated_start_ms - a.measured_start_ms) > std::abs(b.simulated_start_ms - b.measured_start_ms);
  });
  if (out.largest.size() > 5) out.largest.resize(5);
  return out;
}

}  // namespace pipebench
