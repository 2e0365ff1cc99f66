// SPDX-License-Identifier: Apache-2.0
// Prediction: simulation of each schedule's build, verdict, break-even bandwidth.
#include "sim/predictor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <future>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "collectives/registry.h"
#include "core/error.h"
#include "core/huge_page_arena.h"
#include "schedule/activation_memory.h"
#include "schedule/schedule_registry.h"
#include "sim/model_error.h"
#include "sim/schedule_build.h"
#include "sim/verdict.h"

namespace pipebench {
namespace {

// A transfer with no topology path gets a link of its own, numbered past the path links.
constexpr int kOwnLinkStride = 100003;

// The break-even search: an assumed link between these bandwidths, 24 bisection steps on log scale: the
// answer is known to ln(1e8) / 2^24, 1.1e-6 relative, far finer than the 3 significant digits it is shown with.
constexpr double kBreakEvenLowGbps = 1e-3, kBreakEvenHighGbps = 1e5;
constexpr int kBreakEvenSteps = 24;
// The bracket placed by Newton's method stops once it is narrower than this (relative): a quarter of the
// bisection's last step, so at most the last midpoint or two fall inside it and are simulated.
const double kBracketRelativeWidth =
    std::expm1(std::log(kBreakEvenHighGbps / kBreakEvenLowGbps) / (1 << kBreakEvenSteps)) / 4;

struct Context {
  const Plan& plan;
  const ComputeModel& compute;
  const CostModel& costs;
  bool shared_path;
  const PathModel* paths;
  std::vector<int> ranks;         // the first pipeline group
  std::set<std::string> sources;  // cost sources used so far
  // A schedule's build (without its programs) and its programs with the after-pipeline tasks appended,
  // compiled as each rank's is generated (a schedule of p 64, v 8, 1024 microbatches holds three million
  // tasks and is simulated ten times: compiled, 75 MB instead of 200), and the P2P sizes they send.
  struct Prepared {
    HugePageArena memory;  // the programs' steps and ops (read by every run); outlives `programs`
    ScheduleBuild build;
    std::vector<CompiledProgram> programs;
    std::vector<SimCollective> collectives;
    std::vector<std::int64_t> p2p_sizes;
    std::map<int, Sharing> sharing;  // the at-once measurements its collectives use, by key
    // Where the schedule splits B and W: each rank's activations held at the peak (its memory note),
    // counted from the passes as they are generated (not from a second generation of the schedule).
    std::vector<double> activations_held;
  };
  // Each schedule's build, made once by the first thread to need it (its own lock: the other thread goes
  // on with another schedule meanwhile); once made it is never changed, and removed (release) only for a
  // schedule that no break-even search runs.
  struct Slot {
    std::mutex mutex;
    std::unique_ptr<Prepared> prepared;
  };
  std::map<ScheduleId, Slot> builds;
  std::map<int, Sharing> sharing;  // of the schedules simulated so far (this thread only)

  // Cost of a P2P transfer between pipeline ranks src and dst; its source goes to `used` unless null.
  SimTime pair_cost(const CostModel& m, int src, int dst, std::int64_t bytes, std::set<std::string>* used) const {
    const auto [lo, hi] = std::minmax(ranks[static_cast<std::size_t>(src)], ranks[static_cast<std::size_t>(dst)]);
    const CommCost cc = m.cost(OpRegistry::instance().transfer_op(), {lo, hi}, bytes);
    if (used) used->insert(cc.source);
    return cc.time;
  }

  // Cost of a transfer as part of the call `ops` of pipeline rank `caller` (a batch of the plan), when the
  // model measured that batch; else -1 (each transfer then costs pair_cost). Only the calling thread's runs
  // use a model with batches (the break-even's assumed links have none).
  SimTime batch_cost(const CostModel& m, std::int64_t bytes, const P2POp* ops, int nops, int caller) {
    std::vector<RankPair> t;
    std::vector<std::pair<int, int>> key;
    const int self = ranks[static_cast<std::size_t>(caller)];
    for (int i = 0; i < nops; ++i) {
      const int peer = ranks[static_cast<std::size_t>(ops[i].peer)];
      t.push_back(ops[i].send ? RankPair{self, peer} : RankPair{peer, self});
      key.emplace_back(t.back().src, t.back().dst);
    }
    std::sort(key.begin(), key.end());
    const auto cache_key = std::make_pair(std::make_pair(&m, bytes), key);
    auto it = batch_cache.find(cache_key);
    if (it == batch_cache.end()) {
      const std::optional<CommCost> cc = m.batch_cost(t, bytes);
      if (cc) sources.insert(cc->source);
      it = batch_cache.emplace(cache_key, cc ? cc->time : -1).first;
    }
    return it->second;
  }
  std::map<std::pair<std::pair<const CostModel*, std::int64_t>, std::vector<std::pair<int, int>>>, SimTime> batch_cache;

  std::mutex builds_mutex;  // guards the map (the break-even search of one v runs on a second thread)

  const Prepared& prepared(const Schedule& s);
  // Frees schedule id's build once no run needs it again (a reference schedule, simulated once): predict of
  // p 64, v 8, 1024 microbatches, every schedule, peaks at 190 MB instead of 242 (the references' compiled
  // programs were kept to the end).
  void release(const ScheduleId& id) {
    Slot* slot = nullptr;
    {
      const std::lock_guard<std::mutex> lock(builds_mutex);
      const auto it = builds.find(id);
      if (it == builds.end()) return;
      slot = &it->second;
    }
    const std::lock_guard<std::mutex> lock(slot->mutex);
    slot->prepared.reset();
  }
};

// After the pipeline, the plan's collectives in order (one kCollective task each), then the optimizer.
// Members are the simulated ranks of the group; DP peers sit in other pipeline groups, doing the same
// at the same time. Fed one rank at a time, in rank order. Every pipeline group reduces its gradients at
// the same time: where the table timed an op's groups at once, the collectives of one such measurement
// share a resource (its Sharing goes to `sharing`, by key).
class AfterPipeline {
 public:
  AfterPipeline(const ComputeModel& compute, const CostModel& costs, std::map<int, Sharing>& sharing)
      : compute_(compute), costs_(costs), sharing_(sharing) {}

  void add(const ScheduleBuild& b, std::size_t r, Program& program) {
    // The k-th call of a label on a group is one collective of its members (a chunk's DP buckets share
    // their label, each is its own call; every member issues them in the plan's order).
    std::map<std::pair<std::string, std::vector<int>>, int> seen;
    for (const auto& [msg, ms] : b.after[r]) {
      const Key key{msg.what, msg.group, seen[{msg.what, msg.group}]++};
      auto it = by_key_.find(key);
      if (it == by_key_.end()) {
        SimCollective coll;
        for (int g : msg.group) {
          const auto pos = std::find(b.ranks.begin(), b.ranks.end(), g);
          if (pos != b.ranks.end()) coll.members.push_back(static_cast<int>(pos - b.ranks.begin()));
        }
        std::sort(coll.members.begin(), coll.members.end());
        coll.duration = checked_ns_from_ms(ms, "the collectives \"" + msg.what + "\"");
        coll.label = msg.what;
        coll.step_check = is_step_check(msg);
        if (const auto sh = costs_.sharing(*msg.op.collective(), static_cast<int>(msg.group.size()), msg.bytes)) {
          coll.share_key = sh->key;
          coll.share_capacity = sh->capacity();
          sharing_.emplace(sh->key, *sh);
        }
        it = by_key_.emplace(key, static_cast<int>(colls_.size())).first;
        colls_.push_back(coll);
      }
      Task t;
      t.kind = Task::Kind::kCollective;
      t.collective = it->second;
      program.tasks.push_back(t);
    }
    add_optimizer_step(program, compute_.optimizer_ms_of(r));
  }

  std::vector<SimCollective> take() { return std::move(colls_); }

 private:
  const ComputeModel& compute_;
  const CostModel& costs_;
  std::map<int, Sharing>& sharing_;
  std::vector<SimCollective> colls_;
  using Key = std::tuple<std::string, std::vector<int>, int>;  // label, group, occurrence on the rank
  std::map<Key, int> by_key_;
};

// A schedule's programs as a trace run needs them (the compiled ones carry no labels).
std::vector<Program> full_programs(const Context& cx, const Schedule& s) {
  std::map<int, Sharing> unused;  // the prepared build's collectives carry the sharing
  AfterPipeline after(cx.compute, cx.costs, unused);
  std::vector<Program> programs;
  (void)build_schedule(cx.plan, s, cx.compute, cx.costs, true,
                       [&after, &programs](const ScheduleBuild& b, int r, Program& prog) {
                         after.add(b, static_cast<std::size_t>(r), prog);
                         programs.push_back(std::move(prog));
                       });
  return programs;
}

// A rank's activations held at the peak, counted over its program's passes as generated (before the
// collectives and the optimizer are appended): HeldActivations, as peak_activations counts them.
double peak_held(const Program& prog, Pass frees, int v) {
  HeldActivations held(frees);
  for (const Task& t : prog.tasks) {
    if (t.kind == Task::Kind::kCompute) held.pass(t.pass);
  }
  return held.peak(v);
}

const Context::Prepared& Context::prepared(const Schedule& s) {
  Slot* slot = nullptr;
  {
    const std::lock_guard<std::mutex> lock(builds_mutex);
    slot = &builds[s.id];
  }
  const std::lock_guard<std::mutex> lock(slot->mutex);
  if (slot->prepared) return *slot->prepared;
  auto p = std::make_unique<Prepared>();
  AfterPipeline after(compute, costs, p->sharing);
  const ScheduleGenerator& generator = schedule_generator(s.id);
  const bool splits = generator.splits_backward();
  p->build = build_schedule(plan, s, compute, costs, true, [&](const ScheduleBuild& b, int r, Program& prog) {
    if (splits) p->activations_held.push_back(peak_held(prog, freeing_pass(generator), b.spec.shape.v));
    after.add(b, static_cast<std::size_t>(r), prog);
    for (const P2POp& op : prog.ops) {
      if (std::find(p->p2p_sizes.begin(), p->p2p_sizes.end(), op.bytes) == p->p2p_sizes.end())
        p->p2p_sizes.push_back(op.bytes);
    }
    p->programs.push_back(compile_program(std::move(prog), &p->memory));
  });
  p->collectives = after.take();
  std::sort(p->p2p_sizes.begin(), p->p2p_sizes.end());
  slot->prepared = std::move(p);
  return *slot->prepared;
}

SimCosts sim_costs(Context& cx, const CostModel& p2p_model, std::set<std::string>* used) {
  SimCosts sc;
  sc.p2p = [&cx, &p2p_model, used](int src, int dst, std::int64_t bytes) {
    return cx.pair_cost(p2p_model, src, dst, bytes, used);
  };
  if (p2p_model.has_batch_costs()) {
    sc.p2p_batch = [&cx, &p2p_model](int, int, std::int64_t bytes, const P2POp* ops, int nops, int caller) {
      return cx.batch_cost(p2p_model, bytes, ops, nops, caller);
    };
  }
  if (cx.shared_path) {
    sc.link = [](int, int) { return 0; };
  } else if (cx.paths && !cx.paths->empty()) {
    sc.links = [&cx](int src, int dst) {
      const auto it =
          cx.paths->links.find({cx.ranks[static_cast<std::size_t>(src)], cx.ranks[static_cast<std::size_t>(dst)]});
      if (it != cx.paths->links.end()) return it->second;
      return std::vector<int>{static_cast<int>(cx.paths->link_count) + src * kOwnLinkStride + dst};
    };
  }
  sc.compute_slowdown_while_comm = cx.compute.comm_sm_slowdown;
  return sc;
}

// DominantCost of a simulated schedule: on the rank that ends last, the largest of its compute, its
// waits, its exposed P2P (blocked time less its collectives) and each collective it takes part in.
DominantCost dominant_cost(const SimResult& sim, const std::vector<SimCollective>& colls) {
  DominantCost d;
  if (sim.ranks.empty() || sim.iteration <= 0) return d;
  std::size_t last = 0;
  for (std::size_t r = 1; r < sim.ranks.size(); ++r) {
    if (sim.ranks[r].end > sim.ranks[last].end) last = r;
  }
  const RankResult& rr = sim.ranks[last];
  SimTime coll_ns = 0;
  auto consider = [&d](const std::string& what, SimTime ns) {
    const double ms = static_cast<double>(ns) / 1e6;
    if (ms > d.ms) d = {what, ms, 0};
  };
  consider("compute", rr.compute);
  consider("pipeline bubble", rr.waiting);
  for (const auto& c : colls) {
    if (std::find(c.members.begin(), c.members.end(), static_cast<int>(last)) == c.members.end()) continue;
    coll_ns += c.duration;
    consider(c.label + " (collective)", c.duration);
  }
  consider("P2P transfers", std::max<SimTime>(0, rr.blocked - coll_ns));
  d.share = d.ms / (static_cast<double>(sim.iteration) / 1e6);
  return d;
}

// Each pipeline rank's costs in ms and its share of NCCL-busy time; global_ranks by pipeline rank.
std::vector<PredictedRank> predicted_ranks(const SimResult& sim, const std::vector<int>& global_ranks) {
  std::vector<PredictedRank> out;
  const double it = static_cast<double>(sim.iteration);
  for (std::size_t r = 0; r < sim.ranks.size(); ++r) {
    const RankResult& rr = sim.ranks[r];
    out.push_back({global_ranks[r], static_cast<double>(rr.compute) / 1e6, static_cast<double>(rr.blocked) / 1e6,
                   static_cast<double>(sim.iteration - rr.compute - rr.blocked) / 1e6,
                   it > 0 ? static_cast<double>(rr.comm_busy) / it : 0.0, rr.p2p_bytes_out});
  }
  return out;
}

// One schedule of the plan, with P2P costs from p2p_model and everything else from the context's costs;
// the P2P costs' sources go to `used` unless null.
// events: where a trace goes instead of the result (sim/simulator.h).
SchedulePrediction run_schedule(Context& cx, const Schedule& s, const CostModel& p2p_model, bool trace,
                                std::set<std::string>* used, const TraceEventSink* events = nullptr) {
  const Context::Prepared& prepared = cx.prepared(s);
  const ScheduleBuild& b = prepared.build;
  SchedulePrediction sp;
  sp.id = s.id;
  sp.overlap_p2p = b.spec.shape.overlap_p2p;
  const SimCosts costs = sim_costs(cx, p2p_model, used);
  sp.sim = trace ? simulate(full_programs(cx, s), prepared.collectives, costs, true, events)
                 : simulate(prepared.programs, prepared.collectives, costs);
  sp.dominant = dominant_cost(sp.sim, prepared.collectives);
  sp.iteration_ms = static_cast<double>(sp.sim.iteration) / 1e6;
  sp.bubble_ideal = s.bubble_ideal;
  SimTime most = 0;
  for (const auto& rr : sp.sim.ranks) most = std::max(most, rr.compute);
  sp.bubble_sim = sp.sim.iteration > 0 ? 1.0 - static_cast<double>(most) / static_cast<double>(sp.sim.iteration) : 0;
  sp.ranks = predicted_ranks(sp.sim, b.ranks);
  sp.activations_held = prepared.activations_held;
  sp.step_rule = schedule_generator(s.id).step_rule();
  // Under the synchronous step every iteration repeats the cold one to the nanosecond (every rank starts it at the
  // last rank's end, with free links and no collective in flight: tests/sim/simulator_test.cc), so the cold
  // iteration is its steady state; simulating its three iterations took 65 % more CPU on predict of p 64, v 8.
  sp.steady_ms = sp.iteration_ms;
  if (sp.step_rule != StepRule::kSynchronous) {
    const SimResult run = simulate(prepared.programs, prepared.collectives, costs, SimDetail::kIterationOnly,
                                   {kSteadyIterations, sp.step_rule});
    sp.steady_ms = static_cast<double>(steady_iteration(run)) / 1e6;
  }
  return sp;
}

std::string int_list(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// The schedules the selection picks, simulated; GPipe (the 1F1B plan's messages, all forwards then all
// backwards) as a reference.
// searched: the schedules whose builds the break-even searches use (the others' are released once simulated).
void simulate_all(Context& cx, const ScheduleSelection& selection, bool keep_trace,
                  const std::vector<const Schedule*>& searched, const ScheduleTraceSink& trace_sink, Prediction& out) {
  for (const PlannedSchedule& p : selected_schedules(cx.plan, selection)) {
    const Schedule reference = p.reference ? p.to_run() : Schedule{};  // the plan's own are run in place
    const Schedule& s = p.reference ? reference : *p.schedule;
    // A reference too large to simulate is left out of "every schedule" with a note (Megatron's own
    // schedules, or a reference asked for by name, are an error: the user wants that number).
    if (p.reference && selection.all()) {
      if (const std::string problem = task_limit_problem(cx.plan, s); !problem.empty()) {
        out.notes.push_back(p.id.key() + " left out: " + problem);
        continue;
      }
    }
    const Context::Prepared& prepared = cx.prepared(s);
    const ScheduleBuild& b = prepared.build;
    cx.sources.insert(b.cost_sources.begin(), b.cost_sources.end());
    cx.sharing.insert(prepared.sharing.begin(), prepared.sharing.end());
    if (keep_trace && trace_sink) {
      bool simulated = false;
      trace_sink(s.id, [&](const TraceEventSink& events) -> const SchedulePrediction& {
        if (simulated) throw Error("schedule " + s.id.key() + ": simulated twice for its trace");
        simulated = true;
        out.schedules.push_back(run_schedule(cx, s, cx.costs, true, &cx.sources, &events));
        return out.schedules.back();
      });
      if (!simulated) throw Error("schedule " + s.id.key() + ": its trace's writer did not simulate it");
    } else {
      out.schedules.push_back(run_schedule(cx, s, cx.costs, keep_trace, &cx.sources));
    }
    out.schedules.back().reference = p.reference;
    const bool kept = s.id.is_baseline() ||
                      std::any_of(searched.begin(), searched.end(), [&s](const Schedule* x) { return x->id == s.id; });
    if (!kept) cx.release(s.id);
  }
  // Speed-ups are against 1F1B and a reference is never the verdict's pick: a selection without 1F1B has it
  // simulated after its own, as the baseline (the first schedule stays the one asked for).
  const auto base = std::find_if(cx.plan.schedules.begin(), cx.plan.schedules.end(),
                                 [](const Schedule& s) { return s.id.is_baseline(); });
  if (!out.schedules.empty() && base != cx.plan.schedules.end() && !selection.matches(base->id)) {
    const Context::Prepared& prepared = cx.prepared(*base);
    cx.sources.insert(prepared.build.cost_sources.begin(), prepared.build.cost_sources.end());
    cx.sharing.insert(prepared.sharing.begin(), prepared.sharing.end());
    out.schedules.push_back(run_schedule(cx, *base, cx.costs, keep_trace, &cx.sources));
    out.notes.push_back("1f1b: simulated as the baseline of the speed-ups (the selection " + selection.text() +
                        " leaves it out)");
  }
  if (out.schedules.empty()) {
    const std::string detail = "not a schedule of this plan (it has " + schedule_names(cx.plan) +
                               "; valid v for the model: " + int_list(cx.plan.valid_v) + ")";
    throw ModelError(ModelError::Input::kUnknownSchedule, "schedule " + selection.text() + ": " + detail, detail);
  }
}

// Speed-ups against 1F1B, of the iteration the prediction compares.
void set_speedups(Prediction& out) {
  const SchedulePrediction* base = nullptr;
  for (const auto& s : out.schedules) {
    if (s.id.is_baseline()) base = &s;
  }
  for (auto& s : out.schedules) {
    if (!base) s.speedup = 0;  // unknown: a plan without 1F1B has no baseline
    if (base && out.compared_ms(s) > 0) s.speedup = out.compared_ms(*base) / out.compared_ms(s);
  }
}

// The slowest pipeline link (the wrap edge counts when a schedule interleaves). Returns the activation
// size it was costed at.
std::int64_t find_deciding_pair(Context& cx, Prediction& out) {
  const bool interleaving =
      std::any_of(out.schedules.begin(), out.schedules.end(), [](const auto& s) { return s.id.v > 1; });
  std::int64_t act_bytes = 0;
  for (const auto& msg : cx.plan.schedules.at(0).messages) {
    if (msg.op.is_send()) act_bytes = std::max(act_bytes, msg.bytes);
  }
  const int p = static_cast<int>(cx.ranks.size());
  for (int r = 0; p > 1 && r < p; ++r) {
    const int nxt = (r + 1) % p;
    if (nxt == 0 && !interleaving) continue;
    const double ms = static_cast<double>(cx.pair_cost(cx.costs, r, nxt, act_bytes, &cx.sources)) / 1e6;
    if (out.deciding_pair.empty() || ms > out.deciding_pair_ms) {
      out.deciding_pair = {cx.ranks[static_cast<std::size_t>(r)], cx.ranks[static_cast<std::size_t>(nxt)]};
      out.deciding_pair_ms = ms;
    }
  }
  return act_bytes;
}

// A schedule's iteration under assumed links without latency, memoised, with the P2P bytes on the chain
// that ends it (SimResult::iteration_chain_bytes: the iteration's derivative in the link's ns per byte).
// AssumedCost prices a transfer by its size alone, whatever its pair, and nothing else in a run depends on the link: a
// run is a function of the P2P times of the schedule's sizes, so links that give the same times (integer ns) are one
// run. 1F1B's runs are shared by the searches of every v, which may run on two threads: the memo is locked (a run is
// deterministic, so two threads that make the same run agree). The runs' cost sources are not the prediction's (its
// cost_sources are taken before the search).
struct LinkRuns {
  LinkRuns(Context& context, const Schedule& s) : cx(context), schedule(s) {}
  Context& cx;
  const Schedule& schedule;
  struct Run {
    double iteration_ms = 0;
    std::int64_t chain_bytes = 0;
  };
  std::map<std::vector<SimTime>, Run> runs;
  std::mutex mutex;

  // The P2P time of each size at gbps; none when a time is out of range (the simulation then says so).
  [[nodiscard]] std::optional<std::vector<SimTime>> times(double gbps) {
    const AssumedCost link(gbps, 0);
    std::vector<SimTime> t;
    try {
      for (const std::int64_t bytes : cx.prepared(schedule).p2p_sizes)
        t.push_back(link.cost(OpRegistry::instance().transfer_op(), {0, 1}, bytes).time);
    } catch (const UsageError&) {
      return std::nullopt;
    }
    return t;
  }

  Run at(double gbps) {
    const auto key = times(gbps);
    if (!key) return run(gbps);
    {
      const std::lock_guard<std::mutex> lock(mutex);
      const auto it = runs.find(*key);
      if (it != runs.end()) return it->second;
    }
    const Run r = run(gbps);
    const std::lock_guard<std::mutex> lock(mutex);
    return runs.emplace(*key, r).first->second;
  }

  // The largest P2P size the schedule sends (1 when it sends none).
  [[nodiscard]] std::int64_t largest_size() {
    const auto& sizes = cx.prepared(schedule).p2p_sizes;
    return sizes.empty() ? 1 : sizes.back();
  }

  // The iteration and its chain only (SimDetail::kIterationOnly): the search asks nothing else of a run.
  Run run(double gbps) {
    const Context::Prepared& prepared = cx.prepared(schedule);
    const AssumedCost link(gbps, 0);
    const SimResult sim =
        simulate(prepared.programs, prepared.collectives, sim_costs(cx, link, nullptr), SimDetail::kIterationOnly);
    return {static_cast<double>(sim.iteration) / 1e6, sim.iteration_chain_bytes};
  }
};

// Whether an interleaved schedule beats 1F1B on an assumed link of gbps. A faster link never makes it
// lose (the break-even's meaning: above it the schedule wins), so a link whose P2P times are all at most
// those of a link where it won wins too, and one whose times are all at least those of a link where it
// lost loses: such links are answered without simulating (equal times are the very same runs).
class WinSearch {
 public:
  WinSearch(LinkRuns& schedule, LinkRuns& base) : schedule_(schedule), base_(base) {}

  bool wins(double gbps) {
    const auto t = times(gbps);
    if (t) {
      for (const auto& k : known_) {
        if (k.wins && leq(*t, k.times)) return true;
        if (!k.wins && leq(k.times, *t)) return false;
      }
    }
    return simulate(gbps).wins;
  }

  // Links between a winning hi_gbps and a losing lo_gbps, placed by Newton's method on x = 1 / gbps, ns per
  // byte, where a P2P time is bytes x x: the difference of the two iterations grows by the difference of
  // their chains' bytes per unit of x (SimResult::iteration_chain_bytes) while the same chains stay the
  // longest. The tangent is the last link's (the other end's when that one does not rise: far below the
  // break-even, 1F1B's chain of transfers can be the longer one), and the next link is placed a little past
  // its root on the other side (by the relative half width that stops the search, or half a ns of the
  // largest message's time, whichever is more): once a link lies on the piece of the root, the two after
  // it close the bracket. A link that would leave the bracket, or the third in a row on one side, is a
  // bisection (log scale) of the bracket instead. Stops once the closest winning and losing links are
  // closer than the bisection's last step or their P2P times differ by at most 1 ns each: the bisection's
  // links are then answered from these two without simulating, but for the midpoints that fall between them.
  void bracket(double hi_gbps, double lo_gbps) {
    Point w = simulate(hi_gbps), l = simulate(lo_gbps);
    if (!w.wins || l.wins || w.times.empty() || l.times.empty()) return;
    const double nudge_x = 0.5 / static_cast<double>(std::max(schedule_.largest_size(), base_.largest_size()));
    double xw = 1 / hi_gbps, xl = 1 / lo_gbps;
    bool last_wins = false;  // the side of the last link simulated (the losing end first)
    int run = 1;             // links in a row on that side
    for (int i = 0; i < kBracketSteps && !adjacent(w.times, l.times) && xl - xw > kBracketRelativeWidth * xw; ++i) {
      double x = -1;
      if (run < 3) {
        const Point& last = last_wins ? w : l;
        const Point& other = last_wins ? l : w;
        bool from_winning = last_wins;
        std::optional<double> root = tangent_root(last_wins ? xw : xl, last);
        if (!root) {
          root = tangent_root(last_wins ? xl : xw, other);
          from_winning = !last_wins;
        }
        if (root) {
          const double past = std::max(kBracketRelativeWidth * 0.45 * *root, nudge_x);
          x = from_winning ? *root + past : *root - past;
        }
      }
      if (!(x > xw && x < xl)) x = std::sqrt(xw * xl);
      const Point p = simulate(1 / x);
      if (p.times.empty()) return;
      run = p.wins == last_wins ? run + 1 : 1;
      last_wins = p.wins;
      (p.wins ? xw : xl) = x;
      (p.wins ? w : l) = p;
    }
  }

 private:
  static constexpr int kBracketSteps = 64;
  struct Point {
    std::vector<SimTime> times;  // the schedule's P2P times, then 1F1B's; empty: out of range
    bool wins = false;
    double diff_ms = 0;            // the schedule's iteration minus 1F1B's
    std::int64_t chain_bytes = 0;  // the schedule's chain bytes minus 1F1B's
  };

  std::optional<std::vector<SimTime>> times(double gbps) {
    auto a = schedule_.times(gbps);
    const auto b = base_.times(gbps);
    if (!a || !b) return std::nullopt;
    a->insert(a->end(), b->begin(), b->end());
    return a;
  }

  Point simulate(double gbps) {
    Point p;
    const LinkRuns::Run mine = schedule_.at(gbps), base = base_.at(gbps);
    p.wins = mine.iteration_ms < base.iteration_ms;
    p.diff_ms = mine.iteration_ms - base.iteration_ms;
    p.chain_bytes = mine.chain_bytes - base.chain_bytes;
    if (auto t = times(gbps)) {
      p.times = std::move(*t);
      known_.push_back(p);
    }
    return p;
  }

  // Where the tangent of the iteration difference at (x, p) crosses zero; none when it does not rise.
  static std::optional<double> tangent_root(double x, const Point& p) {
    if (p.chain_bytes <= 0) return std::nullopt;
    return x - p.diff_ms / (static_cast<double>(p.chain_bytes) * 1e-6);  // ms per (ns per byte)
  }

  static bool leq(const std::vector<SimTime>& a, const std::vector<SimTime>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), [](SimTime x, SimTime y) { return x <= y; });
  }
  static bool adjacent(const std::vector<SimTime>& w, const std::vector<SimTime>& l) {
    return std::equal(w.begin(), w.end(), l.begin(), [](SimTime x, SimTime y) { return y - x <= 1; });
  }

  LinkRuns& schedule_;
  LinkRuns& base_;
  std::vector<Point> known_;
};

// The P2P bandwidth (an assumed link, no latency) above which schedule s beats 1F1B (base: its runs): a
// bisection on log scale whose links WinSearch answers (simulating near the answer only).
std::optional<double> break_even(LinkRuns& runs, LinkRuns& base) {
  WinSearch search(runs, base);
  double lo = kBreakEvenLowGbps, hi = kBreakEvenHighGbps;
  if (search.wins(lo)) return lo;
  if (!search.wins(hi)) return std::nullopt;
  search.bracket(hi, lo);
  for (int i = 0; i < kBreakEvenSteps; ++i) {
    const double mid = std::sqrt(lo * hi);
    (search.wins(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The plan's 1F1B (null: none).
const Schedule* baseline(const Plan& plan) {
  const auto it =
      std::find_if(plan.schedules.begin(), plan.schedules.end(), [](const auto& s) { return s.id.is_baseline(); });
  return it == plan.schedules.end() ? nullptr : &*it;
}

// The interleaved schedules of the selection, in the plan's order, when the plan has 1F1B to compare with.
std::vector<const Schedule*> break_even_schedules(const Plan& plan, const ScheduleSelection& selection) {
  std::vector<const Schedule*> out;
  for (const auto& s : plan.schedules) {
    if (baseline(plan) && schedule_generator(s.id).interleaves() && selection.matches(s.id)) out.push_back(&s);
  }
  return out;
}

}  // namespace

PathModel path_model(const Placement& placement) {
  PathModel pm;
  std::map<std::string, int> ids;
  const std::map<int, int> gpu_of_rank = placement.gpu_of_rank();
  for (const auto& a : gpu_of_rank) {
    for (const auto& b : gpu_of_rank) {
      const GpuLink* link = a.first == b.first ? nullptr : placement.link(a.first, b.first);
      if (!link) continue;
      std::vector<int> links;
      for (const auto& name : link->path)
        links.push_back(ids.emplace(name, static_cast<int>(ids.size())).first->second);
      pm.links[{a.first, b.first}] = links;
    }
  }
  pm.link_count = ids.size();
  return pm;
}

Prediction predict(const Plan& plan, const CostModel& costs, const ComputeModel& compute, bool shared_path,
                   bool keep_trace, const std::string& filter, const PathModel* paths,
                   const std::vector<ScheduleId>& schedule_files, const ScheduleTraceSink& trace_sink,
                   bool compare_cold) {
  if (plan.layout.pp_groups.empty() || plan.schedules.empty())
    throw UsageError("plan without pipeline groups or schedules");
  Context cx{plan, compute, costs, shared_path, paths, plan.layout.pp_groups.front(), {}, {}, {}, {}, {}};
  Prediction out;
  out.compares_cold = compare_cold;
  out.fwd_ms_per_layer = compute.fwd_ms_per_layer;
  out.bwd_ms_per_layer = compute.bwd_ms_per_layer;
  out.compute_source = compute.source;
  ScheduleSelection selection = parse_schedule_selection("--schedule", filter);
  selection.files = schedule_files;
  // The break-even searches, one per interleaved v, are jobs taken largest v first (the most tasks: with
  // v 2, 4 and 8, v 8's search is about a third of all the simulation) by a second thread from the start
  // and by this one once it has simulated the schedules. Each answer, or error, is taken in the plan's
  // order, as one thread would have met them; an error here stops the second thread after its job.
  const std::vector<const Schedule*> searched = break_even_schedules(plan, selection);
  std::list<LinkRuns> runs;  // 1F1B's, then each searched schedule's
  if (!searched.empty()) runs.emplace_back(cx, *baseline(plan));
  std::vector<LinkRuns*> jobs;
  for (const Schedule* s : searched) jobs.push_back(&runs.emplace_back(cx, *s));
  std::vector<std::optional<double>> answers(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  std::atomic<std::size_t> taken{0};
  const auto work = [&] {
    for (std::size_t i = taken++; i < jobs.size(); i = taken++) {
      const std::size_t k = jobs.size() - 1 - i;
      try {
        answers[k] = break_even(*jobs[k], runs.front());
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  std::future<void> second;
  if (jobs.size() > 1) second = std::async(std::launch::async, work);
  try {
    simulate_all(cx, selection, keep_trace, searched, trace_sink, out);
  } catch (...) {
    taken = jobs.size();
    throw;
  }
  set_speedups(out);
  out.deciding_bytes = find_deciding_pair(cx, out);
  decide_verdict(out, kDefaultSpeedupBand, "default");
  out.cost_sources.assign(cx.sources.begin(), cx.sources.end());
  for (const auto& [key, sh] : cx.sharing) out.sharing.push_back(sh);
  work();
  if (second.valid()) second.get();
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (errors[k]) std::rethrow_exception(errors[k]);
    out.break_even_gbps.emplace_back(searched[k]->id.v, answers[k]);
  }
  return out;
}

}  // namespace pipebench
