// SPDX-License-Identifier: Apache-2.0
// bench --plan.
#include "app/plan_bench.h"

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
#include "harness/point_runner.h"
#include "harness/sweep.h"
#include "harness/watchdog.h"
#include "io/plan_io.h"
#include "report/console_table.h"

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
        p = &points[{"pair", group, m.elements, dtype}];
        if (p->ids.empty()) p->forward = p->backward = false;
        p->op = "pair";
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
  if (!matched) throw UsageError("--schedule " + schedule + ": no such schedule in the plan (e.g. 1f1b, interleaved:v4)");
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

int run_plan_bench_on(Backend& full, const Plan& plan, const std::string& label, const BenchConfig& c,
                      const World& world) {
  const std::vector<PlanPoint> points = distinct_plan_points(plan, c.plan_schedule);
  Backend* backend = &full;
  const int n = backend->nranks();
  const int plan_world = plan.layout.world;
  BenchConfig base = c;
  base.ops = {"plan"};
  ReportSession report(world, *backend, c.json_path, c.csv_path, bench_config_json(base));
  std::ostream& out = std::cout;
  const bool speak = world.rank() == 0;
  if (speak) {
    out << "# pipebench bench --plan " << label << ": " << points.size() << " distinct messages"
        << (c.plan_schedule.empty() ? " over all schedules" : " of schedule " + c.plan_schedule) << " on " << n << " "
        << backend->name() << " rank" << (n == 1 ? "" : "s") << " (plan world " << plan_world << ")\n";
    out << "#  op              group               elements  dtype          bytes      time (us)    algbw    busbw  #wrong  "
           "class  plan ids\n";
  }
  std::map<std::vector<int>, std::unique_ptr<Backend>> comms;
  std::vector<std::string> left_out;
  SweepSummary summary;
  const std::uint64_t free_bytes = world.min_u64(backend->nlocal() ? backend->free_memory_bytes() : UINT64_MAX);
  for (const auto& p : points) {
    const std::string label = p.op + " " + group_text(p.group) + " " + std::to_string(p.elements) + " x " +
                              std::string(dtype_name(p.dtype));
    if (p.group.back() >= n) {
      left_out.push_back(label + ": needs rank " + std::to_string(p.group.back()) + ", only " + std::to_string(n) + " here");
      continue;
    }
    const Op& op = OpRegistry::instance().find("--plan", p.op);
    BenchConfig pc = c;
    pc.params = OpParams{};
    if (p.op == "pair") {
      pc.params.pairs = {p.forward ? RankPair{0, 1} : RankPair{1, 0}};
      pc.params.bidirectional = p.forward && p.backward;
    }
    const auto bytes = static_cast<std::uint64_t>(p.elements) * dtype_size(p.dtype);
    const Sizing need = op.sizing(bytes, dtype_size(p.dtype), static_cast<int>(p.group.size()), pc.params);
    if (need.send_bytes + need.recv_bytes > free_bytes) {
      left_out.push_back(label + ": needs " + format_size(need.send_bytes + need.recv_bytes) + " of buffers, " +
                         format_size(free_bytes) + " free");
      continue;
    }
    Backend* comm = backend;
    if (static_cast<int>(p.group.size()) != n) {
      auto& slot = comms[p.group];
      if (!slot) slot = backend->split(p.group);  // collective: every rank takes part
      comm = slot.get();
    }
    PointRunner runner(*comm, world, pc);
    ResultRecord rec;
    {
      Watchdog dog(c.timeout_s, world, "plan message " + label);
      rec = runner.measure({&op, p.dtype, op.reduces() ? RedOp::kSum : RedOp::kNone, bytes, false});
    }
    rec.plan_ids = p.ids;
    ++summary.records;
    if (rec.wrong > 0) summary.wrong += static_cast<std::uint64_t>(rec.wrong);
    if (report.sink()) report.sink()->add(rec);
    if (speak) {
      const std::string cls = report.classes() ? report.classes()->class_of(rec.ranks) : "";
      std::string ids;
      for (std::size_t i = 0; i < p.ids.size() && i < 6; ++i) ids += (i ? "," : "") + std::to_string(p.ids[i]);
      if (p.ids.size() > 6) ids += ",... (" + std::to_string(p.ids.size()) + ")";
      char buf[400];
      std::snprintf(buf, sizeof buf, "   %-15s %-18s %10lld  %-8s %12lld  %13s  %7s  %7s  %6lld  %-5s  %s\n",
                    (p.op == "pair" ? (pc.params.bidirectional ? "sendrecv both" : "send") : p.op.c_str()),
                    group_text(p.group).c_str(), static_cast<long long>(p.elements), std::string(dtype_name(p.dtype)).c_str(),
                    static_cast<long long>(bytes), format_fixed_width(rec.time_us, 13).c_str(),
                    format_fixed_width(rec.algbw_gbps, 7).c_str(), format_fixed_width(rec.busbw_gbps, 7).c_str(),
                    static_cast<long long>(rec.wrong), cls.empty() ? "-" : cls.c_str(), ids.c_str());
      out << buf;
      out.flush();
    }
  }
  report.finish();
  if (speak) {
    for (const auto& l : left_out) out << "# left out: " << l << "\n";
    out << "# Wrong values: " << summary.wrong << (summary.wrong ? " FAILED" : " OK") << "\n";
  }
  return exit_status(summary);
}

}  // namespace pipebench
