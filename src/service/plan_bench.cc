// SPDX-License-Identifier: Apache-2.0
// bench --plan.
#include "service/plan_bench.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "backend/backend_factory.h"
#include "collectives/plan_call.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/units.h"
#include "harness/sweep.h"
#include "io/plan_io.h"
#include "megatron/plan.h"
#include "report/plan_bench_printer.h"
#include "report/results_json.h"
#include "service/bench_sweep.h"
#include "service/plan_pass_costs.h"
#include "service/record_outputs.h"
#include "service/report_session.h"

namespace pipebench {

namespace {

// The P2P messages of one batch (one rank's call): its transfers in global ranks.
struct BatchMessages {
  std::vector<RankPair> transfers;
  std::vector<int> ids;
  std::string call;
  std::int64_t elements = 0;
  DType dtype = DType::kFloat;
};

using TransferKey = std::tuple<std::vector<std::pair<int, int>>, std::int64_t, std::string>;

// A schedule's batches merged into points: the same transfers at the same size are timed once (rank 1's
// send_forward_recv_backward is rank 2's send_backward_recv_forward: both directions of {1, 2} at once).
void add_batch_points(const Schedule& s, std::map<TransferKey, PlanPoint>& points) {
  std::map<std::pair<int, int>, BatchMessages> batches;  // (rank, batch) -> messages
  for (const auto& m : s.messages) {
    if (!m.op.is_p2p() || m.batch < 0) continue;
    BatchMessages& b = batches[{m.rank, m.batch}];
    b.transfers.push_back(m.op.is_send() ? RankPair{m.rank, m.peer} : RankPair{m.peer, m.rank});
    b.ids.push_back(m.id);
    b.call = m.call;
    b.elements = m.elements;
    b.dtype = m.dtype;
  }
  const Op& transfer = OpRegistry::instance().transfer_op();
  for (auto& [key, b] : batches) {
    std::vector<std::pair<int, int>> t;
    for (const auto& x : b.transfers) t.emplace_back(x.src, x.dst);
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    PlanPoint& p = points[{t, b.elements, std::string(dtype_name(b.dtype))}];
    if (p.ids.empty()) {
      p.op = &transfer;
      p.elements = b.elements;
      p.dtype = b.dtype;
      for (const auto& [src, dst] : t) {
        p.transfers.push_back({src, dst});
        p.group.push_back(src);
        p.group.push_back(dst);
      }
      std::sort(p.group.begin(), p.group.end());
      p.group.erase(std::unique(p.group.begin(), p.group.end()), p.group.end());
    }
    p.ids.insert(p.ids.end(), b.ids.begin(), b.ids.end());
    if (("+" + p.batch + "+").find("+" + b.call + "+") == std::string::npos)
      p.batch += (p.batch.empty() ? "" : "+") + b.call;
  }
}

}  // namespace

std::vector<PlanPoint> distinct_plan_points(const Plan& plan, const std::string& schedule) {
  using Key = std::tuple<std::string, std::vector<int>, std::int64_t, std::string>;
  std::map<Key, PlanPoint> points;
  std::map<TransferKey, PlanPoint> batch_points;
  bool matched = false;
  // A reference schedule (GPipe, zero-bubble) runs on a plan schedule's messages: each plan schedule's points once.
  std::set<const Schedule*> timed;
  for (const PlannedSchedule& p : selected_schedules(plan, parse_schedule_selection("--schedule", schedule))) {
    if (!timed.insert(p.schedule).second) continue;
    const Schedule& s = *p.schedule;
    matched = true;
    add_batch_points(s, batch_points);
    for (const auto& m : s.messages) {
      if (m.op.is_recv() || (m.op.is_send() && m.batch >= 0)) continue;  // the matching send stands for the transfer
      const std::string dtype(dtype_name(m.dtype));
      std::vector<int> group = m.group;
      std::sort(group.begin(), group.end());
      PlanPoint* p = nullptr;
      if (m.op.is_send()) {
        group = {std::min(m.rank, m.peer), std::max(m.rank, m.peer)};
        const Op& transfer = OpRegistry::instance().transfer_op();
        p = &points[{std::string(transfer.name()), group, m.elements, dtype}];
        if (p->ids.empty()) p->forward = p->backward = false;
        p->op = &transfer;
        (m.rank < m.peer ? p->forward : p->backward) = true;
      } else {
        p = &points[{std::string(m.op.name()), group, m.elements, dtype}];
        p->op = m.op.collective();
      }
      p->group = group;
      p->elements = m.elements;
      p->dtype = m.dtype;
      p->ids.push_back(m.id);
    }
  }
  if (!matched)
    throw UsageError("--schedule " + schedule + ": no such schedule in the plan (it has " + schedule_names(plan) + ")");
  std::vector<PlanPoint> out;
  for (auto& [key, p] : points) out.push_back(std::move(p));
  for (auto& [key, p] : batch_points) {
    std::sort(p.ids.begin(), p.ids.end());
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// One op, type and group size of a schedule's after-pipeline collectives: each message's size and id, by group.
using AtOnceKey = std::tuple<std::string, std::string, std::size_t>;
using AtOnceMessages = std::map<std::vector<int>, std::vector<std::pair<std::int64_t, int>>>;

bool disjoint(const AtOnceMessages& by_group) {
  std::set<int> seen;
  for (const auto& [group, msgs] : by_group) {
    for (int r : group) {
      if (!seen.insert(r).second) return false;
    }
  }
  return true;
}

// The size classes of one key's messages as points.
void add_at_once_classes(const AtOnceKey& key, const AtOnceMessages& by_group, const Op& op, DType dtype,
                         std::map<std::tuple<AtOnceKey, std::int64_t, std::vector<std::vector<int>>>, PlanPoint>& out) {
  std::set<std::int64_t> sizes;
  for (const auto& [group, msgs] : by_group) {
    for (const auto& [elements, id] : msgs) sizes.insert(elements);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> classes;  // [smallest, largest]
  for (const std::int64_t e : sizes) {
    if (classes.empty() || static_cast<double>(e) > kAtOnceSizeRatio * static_cast<double>(classes.back().first))
      classes.emplace_back(e, e);
    classes.back().second = e;
  }
  for (const auto& [lo, hi] : classes) {
    PlanPoint p;
    p.op = &op;
    p.dtype = dtype;
    p.elements = hi;
    for (const auto& [group, msgs] : by_group) {
      bool in = false;
      for (const auto& [elements, id] : msgs) {
        if (elements < lo || elements > hi) continue;
        in = true;
        p.ids.push_back(id);
      }
      if (!in) continue;
      p.at_once.push_back(group);
      p.group.insert(p.group.end(), group.begin(), group.end());
    }
    if (p.at_once.size() < 2) continue;
    std::sort(p.group.begin(), p.group.end());
    std::sort(p.ids.begin(), p.ids.end());
    PlanPoint& slot = out[{key, hi, p.at_once}];
    if (slot.at_once.empty()) {
      slot = std::move(p);
    } else {
      slot.ids.insert(slot.ids.end(), p.ids.begin(), p.ids.end());
    }
  }
}

}  // namespace

std::vector<PlanPoint> at_once_points(const Plan& plan, const std::string& schedule) {
  std::map<std::tuple<AtOnceKey, std::int64_t, std::vector<std::vector<int>>>, PlanPoint> points;
  std::set<const Schedule*> seen;
  for (const PlannedSchedule& p : selected_schedules(plan, parse_schedule_selection("--schedule", schedule))) {
    if (!seen.insert(p.schedule).second) continue;
    std::map<AtOnceKey, AtOnceMessages> by_key;
    std::map<AtOnceKey, std::pair<const Op*, DType>> kinds;  // the key's op and type, typed
    for (const auto& m : p.schedule->messages) {
      if (m.phase != Phase::kAfter || m.op.is_p2p() || m.bytes < kAtOnceMinBytes) continue;
      std::vector<int> group = m.group;
      std::sort(group.begin(), group.end());
      const AtOnceKey key{std::string(m.op.name()), std::string(dtype_name(m.dtype)), group.size()};
      by_key[key][group].emplace_back(m.elements, m.id);
      kinds[key] = {m.op.collective(), m.dtype};
    }
    for (const auto& [key, by_group] : by_key) {
      const auto& [op, dtype] = kinds[key];
      if (by_group.size() >= 2 && disjoint(by_group)) add_at_once_classes(key, by_group, *op, dtype, points);
    }
  }
  std::vector<PlanPoint> out;
  for (auto& [key, p] : points) {
    std::sort(p.ids.begin(), p.ids.end());
    p.ids.erase(std::unique(p.ids.begin(), p.ids.end()), p.ids.end());
    out.push_back(std::move(p));
  }
  return out;
}

int run_plan_bench(const BenchConfig& c, const World& world) {
  const Plan plan = load_plan("--plan", c.plan_path);
  (void)distinct_plan_points(plan, c.plan_schedule);  // a bad --schedule fails before any backend exists
  auto backend = make_backend(c.backend, world, c.gpus_per_process, c.gpu_list);
  return run_plan_bench_on(*backend, plan, c.plan_path, c, world);
}

namespace {

std::string point_label(const PlanPoint& p) {
  return std::string(p.op->name()) + " " + plan_group_text(p.group) + " " + std::to_string(p.elements) + " x " +
         std::string(dtype_name(p.dtype));
}

// The points that fit on these ranks, each on the communicator of its group (split here, collectively,
// in point order); the others with the reason they are left out.
struct PlanSweep {
  std::vector<SweepPoint> points;
  std::vector<const PlanPoint*> sources;  // the plan point of each of `points`
  std::vector<std::string> left_out;
  std::map<std::vector<int>, std::unique_ptr<Backend>> comms;
  std::vector<std::unique_ptr<Backend>> at_once_comms;
};

// A batch point: one way or both ways on one pair as the transfer op's own params (so a table keeps
// its one-way and bidirectional figures apart); more transfers as explicit pairs on the group's ranks.
OpParams point_params(const Op& op, const PlanPoint& p) {
  if (p.transfers.empty()) return op.transfer_params(p.forward, p.backward);
  const auto local = [&p](int rank) {
    return static_cast<int>(std::lower_bound(p.group.begin(), p.group.end(), rank) - p.group.begin());
  };
  if (p.group.size() == 2 && p.transfers.size() <= 2) {
    bool forward = false, backward = false;
    for (const auto& t : p.transfers) (t.src < t.dst ? forward : backward) = true;
    return op.transfer_params(forward, backward);
  }
  OpParams params;
  for (const auto& t : p.transfers) params.pairs.push_back({local(t.src), local(t.dst)});
  return params;
}

// The op column: a batch's one transfer "send 0->1", its "batch of N" over several pairs, else the
// transfer op's label ("sendrecv both").
std::string point_op_label(const SweepPoint& sp, const PlanPoint& p) {
  if (!p.at_once.empty()) return std::string(p.op->name()) + " x" + std::to_string(p.at_once.size());
  if (p.transfers.size() == 1)
    return "send " + std::to_string(p.transfers[0].src) + "->" + std::to_string(p.transfers[0].dst);
  if (!p.transfers.empty() && p.group.size() > 2) return "batch of " + std::to_string(p.transfers.size());
  return sp.point.op->plan_label(*sp.params);
}

// An at-once point's communicator on this process: the group holding its ranks (every process splits
// at once; one in no group gets an empty one). Null where a process's ranks sit in several groups.
Backend* at_once_comm(Backend& backend, const PlanPoint& p, PlanSweep& sweep) {
  std::vector<int> mine = p.at_once.front();  // a process in no group passes a list without itself
  int groups_here = 0;
  for (const auto& g : p.at_once) {
    bool holds = false;
    for (int l = 0; l < backend.nlocal(); ++l)
      holds = holds || std::find(g.begin(), g.end(), backend.rank_of(l)) != g.end();
    if (holds) {
      mine = g;
      ++groups_here;
    }
  }
  if (groups_here > 1) return nullptr;
  sweep.at_once_comms.push_back(backend.split(mine));
  return sweep.at_once_comms.back().get();
}

void add_plan_point(Backend& backend, const PlanPoint& p, std::uint64_t free_bytes, PlanSweep& sweep) {
  const int n = backend.nranks();
  const std::string label = point_label(p);
  if (p.group.back() >= n) {
    sweep.left_out.push_back(label + ": needs rank " + std::to_string(p.group.back()) + ", only " + std::to_string(n) +
                             " here");
    return;
  }
  const Op& op = *p.op;
  const OpParams params = point_params(op, p);
  const auto bytes = static_cast<std::uint64_t>(p.elements) * dtype_size(p.dtype);
  const Sizing need = op.sizing(bytes, dtype_size(p.dtype), static_cast<int>(p.group.size()), params);
  if (need.send_bytes + need.recv_bytes > free_bytes) {
    sweep.left_out.push_back(label + ": needs " + format_size(need.send_bytes + need.recv_bytes) + " of buffers, " +
                             format_size(free_bytes) + " free");
    return;
  }
  Backend* comm = nullptr;
  if (!p.at_once.empty()) {
    comm = at_once_comm(backend, p, sweep);
    if (!comm) {
      sweep.left_out.push_back(label + " at once: a process holds ranks of several groups");
      return;
    }
  } else if (static_cast<int>(p.group.size()) != n) {
    auto& slot = sweep.comms[p.group];
    if (!slot) slot = backend.split(p.group);  // collective: every rank takes part
    comm = slot.get();
  }
  // The call replay makes (collectives/plan_call.h) and predict prices.
  const PlanCall call = plan_call(op);
  const Point point{&op, p.dtype, call.redop, bytes, call.in_place};
  sweep.points.push_back({point, params, comm, "plan message " + label});
  sweep.sources.push_back(&p);
}

// Rank 0: stamps each record with its plan ids, forwards it to the report and prints its row.
class PlanRowSink final : public RecordSink {
 public:
  PlanRowSink(RecordSink& next, const PlanSweep& sweep, const ReportSession& report)
      : next_(next), sweep_(sweep), report_(report) {}
  void add(const ResultRecord& r) override {
    const PlanPoint& p = *sweep_.sources.at(index_);
    const SweepPoint& sp = sweep_.points.at(index_++);
    ResultRecord rec = r;
    rec.plan_ids = p.ids;
    if (!p.at_once.empty()) {  // the time over every group; the record names them all
      rec.ranks = p.group;
      rec.at_once = p.at_once;
    }
    next_.add(rec);
    const std::optional<LinkClass> cls = report_.placement() ? report_.placement()->class_of(rec.ranks) : std::nullopt;
    print_plan_bench_row(std::cout, rec, point_op_label(sp, p), p.group, p.elements, p.dtype, sp.point.requested_bytes,
                         cls ? cls->label() : "", p.batch);
  }

 private:
  RecordSink& next_;
  const PlanSweep& sweep_;
  const ReportSession& report_;
  std::size_t index_ = 0;
};

}  // namespace

int run_plan_bench_on(Backend& backend, const Plan& plan, const std::string& label, const BenchConfig& c,
                      const World& world, ResultSet* results) {
  std::vector<PlanPoint> points = distinct_plan_points(plan, c.plan_schedule);
  const std::size_t distinct = points.size();
  for (auto& p : at_once_points(plan, c.plan_schedule)) points.push_back(std::move(p));
  // The header's ops: the plan's messages, not a sweep's ops.
  nlohmann::json config = bench_config_json(c);
  config["ops"] = {"plan"};
  std::vector<ResultRecord> collected;
  ReportSession report(world, backend, c.outputs.json_path, c.outputs.csv_path, config, results ? &collected : nullptr);
  open_record_outputs(report, {report.system(), c, backend, world, std::nullopt});
  const bool speak = world.rank() == 0;
  if (speak) {
    print_plan_bench_header(std::cout, label, c.plan_schedule, distinct, points.size() - distinct, backend.nranks(),
                            std::string(backend.name()), plan.layout.world);
  }
  PlanSweep sweep;
  const std::uint64_t free_bytes = world.min_u64(backend.nlocal() ? backend.free_memory_bytes() : UINT64_MAX);
  for (const auto& p : points) add_plan_point(backend, p, free_bytes, sweep);
  std::unique_ptr<PlanRowSink> rows;
  if (report.sink()) rows = std::make_unique<PlanRowSink>(*report.sink(), sweep, report);
  const SweepSummary summary = run_sweep(backend, world, c.measure, c.sweep, sweep.points, rows.get());
  report.finish();
  if (summary.interrupted_by != 0) return interrupted_status(summary, c, world);
  // bench --plan alone; run's plan sweep (results given) may be filtered out by a filter meant for its main sweep.
  if (!results) require_measured(summary, sweep.points.size(), c.measure);
  std::optional<PassCosts> pass_costs;  // rank 0, after the messages: nothing else runs on its GPU then
  if (speak && c.plan_pass_costs) pass_costs = measure_plan_pass_costs(backend, plan, std::cout);
  if (pass_costs) report.set_pass_costs(*pass_costs);
  if (results && speak) {
    results->pass_costs = pass_costs;
    // The system block as the file's reader holds it, so both views agree: the session's typed topology
    // (io/topology_io.h topology_file), its devices' bus ids normalised.
    results->system = system_as_read(report.system(), "(" + c.outputs.json_path + " in memory)");
    results->records = std::move(collected);
  }
  if (speak) print_plan_bench_verdict(std::cout, sweep.left_out, summary);
  return exit_status(summary);
}

}  // namespace pipebench
