// SPDX-License-Identifier: Apache-2.0
// bench --plan.
#include "app/plan_bench.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <tuple>

#include "app/bench_command.h"
#include "app/report_session.h"
#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/units.h"
#include "harness/sweep.h"
#include "io/plan_io.h"
#include "report/console_table.h"
#include "report/results_json.h"

namespace pipebench {

std::vector<PlanPoint> distinct_plan_points(const Plan& plan, const std::string& schedule) {
  using Key = std::tuple<std::string, std::vector<int>, std::int64_t, std::string>;
  std::map<Key, PlanPoint> points;
  bool matched = false;
  for (const auto& s : plan.schedules) {
    const std::string full = s.name + ":v" + std::to_string(s.v);
    if (!schedule.empty() && schedule != s.name && schedule != full) continue;
    matched = true;
    for (const auto& m : s.messages) {
      if (m.op == "recv") continue;  // the matching send stands for the transfer
      const std::string dtype(dtype_name(m.dtype));
      std::vector<int> group = m.group;
      std::sort(group.begin(), group.end());
      PlanPoint* p = nullptr;
      if (m.op == "send") {
        group = {std::min(m.rank, m.peer), std::max(m.rank, m.peer)};
        const std::string transfer(OpRegistry::instance().plan_transfer_op().name());
        p = &points[{transfer, group, m.elements, dtype}];
        if (p->ids.empty()) p->forward = p->backward = false;
        p->op = transfer;
        (m.rank < m.peer ? p->forward : p->backward) = true;
      } else {
        p = &points[{m.op, group, m.elements, dtype}];
        p->op = m.op;
      }
      p->group = group;
      p->elements = m.elements;
      p->dtype = m.dtype;
      p->ids.push_back(m.id);
    }
  }
  if (!matched)
    throw UsageError("--schedule " + schedule + ": no such schedule in the plan (e.g. 1f1b, interleaved:v4)");
  std::vector<PlanPoint> out;
  for (auto& [key, p] : points) out.push_back(std::move(p));
  return out;
}

namespace {

std::string group_text(const std::vector<int>& g) {
  std::string s = "{";
  for (std::size_t i = 0; i < g.size() && i < 6; ++i) s += (i ? "," : "") + std::to_string(g[i]);
  return s + (g.size() > 6 ? ",...}" : "}");
}

}  // namespace

int run_plan_bench(const BenchConfig& c, const World& world) {
  const Plan plan = load_plan("--plan", c.plan_path);
  (void)distinct_plan_points(plan, c.plan_schedule);  // a bad --schedule fails before any backend exists
  auto backend = make_backend(c.backend, world, c.gpus_per_process);
  return run_plan_bench_on(*backend, plan, c.plan_path, c, world);
}

namespace {

std::string point_label(const PlanPoint& p) {
  return p.op + " " + group_text(p.group) + " " + std::to_string(p.elements) + " x " + std::string(dtype_name(p.dtype));
}

// The points that fit on these ranks, each on the communicator of its group (split here, collectively,
// in point order); the others with the reason they are left out.
struct PlanSweep {
  std::vector<SweepPoint> points;
  std::vector<const PlanPoint*> sources;  // the plan point of each of `points`
  std::vector<std::string> left_out;
  std::map<std::vector<int>, std::unique_ptr<Backend>> comms;
};

void add_plan_point(Backend& backend, const PlanPoint& p, std::uint64_t free_bytes, PlanSweep& sweep) {
  const int n = backend.nranks();
  const std::string label = point_label(p);
  if (p.group.back() >= n) {
    sweep.left_out.push_back(label + ": needs rank " + std::to_string(p.group.back()) + ", only " + std::to_string(n) +
                             " here");
    return;
  }
  const auto known = OpRegistry::instance().names();
  if (!std::binary_search(known.begin(), known.end(), p.op)) {
    sweep.left_out.push_back(label + ": no op '" + p.op + "' in this build to time it");
    return;
  }
  const Op& op = OpRegistry::instance().find("--plan", p.op);
  const OpParams params = op.transfer_params(p.forward, p.backward);
  const auto bytes = static_cast<std::uint64_t>(p.elements) * dtype_size(p.dtype);
  const Sizing need = op.sizing(bytes, dtype_size(p.dtype), static_cast<int>(p.group.size()), params);
  if (need.send_bytes + need.recv_bytes > free_bytes) {
    sweep.left_out.push_back(label + ": needs " + format_size(need.send_bytes + need.recv_bytes) + " of buffers, " +
                             format_size(free_bytes) + " free");
    return;
  }
  Backend* comm = nullptr;
  if (static_cast<int>(p.group.size()) != n) {
    auto& slot = sweep.comms[p.group];
    if (!slot) slot = backend.split(p.group);  // collective: every rank takes part
    comm = slot.get();
  }
  const Point point{&op, p.dtype, op.reduces() ? RedOp::kSum : RedOp::kNone, bytes, false};
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
    next_.add(rec);
    const std::string cls = report_.classes() ? report_.classes()->class_of(rec.ranks) : "";
    std::string ids;
    for (std::size_t i = 0; i < p.ids.size() && i < 6; ++i) ids += (i ? "," : "") + std::to_string(p.ids[i]);
    if (p.ids.size() > 6) ids += ",... (" + std::to_string(p.ids.size()) + ")";
    char buf[400];
    std::snprintf(buf, sizeof buf, "   %-15s %-18s %10lld  %-8s %12lld  %13s  %7s  %7s  %6lld  %-5s  %s\n",
                  sp.point.op->plan_label(*sp.params).c_str(), group_text(p.group).c_str(),
                  static_cast<long long>(p.elements), std::string(dtype_name(p.dtype)).c_str(),
                  static_cast<long long>(sp.point.requested_bytes), format_fixed_width(rec.time_us, 13).c_str(),
                  format_fixed_width(rec.algbw_gbps, 7).c_str(), format_fixed_width(rec.busbw_gbps, 7).c_str(),
                  static_cast<long long>(rec.wrong), cls.empty() ? "-" : cls.c_str(), ids.c_str());
    std::cout << buf;
    if (!rec.error.empty()) std::cout << "#   error: " << rec.error << "\n";
    std::cout.flush();
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
  const std::vector<PlanPoint> points = distinct_plan_points(plan, c.plan_schedule);
  const int n = backend.nranks();
  const int plan_world = plan.layout.world;
  BenchConfig base = c;
  base.ops = {"plan"};
  std::vector<ResultRecord> collected;
  ReportSession report(world, backend, c.json_path, c.csv_path, bench_config_json(base),
                       results ? &collected : nullptr);
  std::ostream& out = std::cout;
  const bool speak = world.rank() == 0;
  if (speak) {
    out << "# pipebench bench --plan " << label << ": " << points.size() << " distinct messages"
        << (c.plan_schedule.empty() ? " over all schedules" : " of schedule " + c.plan_schedule) << " on " << n << " "
        << backend.name() << " rank" << (n == 1 ? "" : "s") << " (plan world " << plan_world << ")\n";
    out << "#  op              group               elements  dtype          bytes      time (us)    algbw    busbw  "
           "#wrong  class  plan ids\n";
  }
  PlanSweep sweep;
  const std::uint64_t free_bytes = world.min_u64(backend.nlocal() ? backend.free_memory_bytes() : UINT64_MAX);
  for (const auto& p : points) add_plan_point(backend, p, free_bytes, sweep);
  std::unique_ptr<PlanRowSink> rows;
  if (report.sink()) rows = std::make_unique<PlanRowSink>(*report.sink(), sweep, report);
  const SweepSummary summary = run_sweep(backend, world, c, sweep.points, rows.get());
  report.finish();
  // bench --plan alone; run's plan sweep (results given) may be filtered out by a filter meant for its main sweep.
  if (!results) require_measured(summary, sweep.points.size(), c);
  if (results && speak) {
    // The system block through the same reader as the file's, so both views agree.
    const nlohmann::json doc = {
        {"schema", kResultsSchema}, {"system", report.system()}, {"records", nlohmann::json::array()}};
    results->system = results_from_json(doc, "(" + c.json_path + " in memory)").system;
    results->records = std::move(collected);
  }
  if (speak) {
    for (const auto& l : sweep.left_out) out << "# left out: " << l << "\n";
    out << "# Wrong values: " << summary.wrong << (summary.wrong ? " FAILED" : " OK") << "\n";
    if (summary.errors) out << "# Failed points: " << summary.errors << "\n";
  }
  return exit_status(summary);
}

}  // namespace pipebench
