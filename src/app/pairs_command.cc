// SPDX-License-Identifier: Apache-2.0
// `pipebench pairs`.
#include "app/pairs_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "app/bench_command.h"
#include "app/report_session.h"
#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/units.h"
#include "harness/point_runner.h"
#include "harness/sweep.h"
#include "harness/watchdog.h"

namespace pipebench {
namespace {

struct Cell {
  double busbw_gbps = -1;  // -1: not measured
  std::int64_t wrong = 0;
};

using Matrix = std::map<std::pair<int, int>, Cell>;

void print_matrix(std::ostream& out, const std::string& title, const Matrix& m, int n, const ReportSession& report) {
  out << "#\n# " << title << "\n#   row = sender, column = receiver; GB/s per direction (% of the path's theoretical)\n";
  out << "#       ";
  for (int j = 0; j < n; ++j) {
    char h[32];
    std::snprintf(h, sizeof h, "%14s", ("rank " + std::to_string(j)).c_str());
    out << h;
  }
  out << "\n";
  for (int i = 0; i < n; ++i) {
    char lead[32];
    std::snprintf(lead, sizeof lead, "  rank %-3d", i);
    out << lead;
    for (int j = 0; j < n; ++j) {
      char c[32];
      auto it = m.find({i, j});
      if (i == j) {
        std::snprintf(c, sizeof c, "%14s", "-");
      } else if (it == m.end() || it->second.busbw_gbps < 0) {
        std::snprintf(c, sizeof c, "%14s", ".");
      } else {
        const PairInfo* p = report.classes() ? report.classes()->pair(i, j) : nullptr;
        if (p && p->path_min_gbps > 0) {
          std::snprintf(c, sizeof c, "%8.2f (%3.0f%%)", it->second.busbw_gbps, 100 * it->second.busbw_gbps / p->path_min_gbps);
        } else {
          std::snprintf(c, sizeof c, "%14.2f", it->second.busbw_gbps);
        }
      }
      out << c;
    }
    out << "\n";
  }
}

}  // namespace

int run_pairs_command(const PairsOptions& o, const World& world) {
  const BackendKind kind = resolve_backend(o.backend, world);
  int gpus = o.gpus_per_process;
  if (gpus == 0) gpus = kind == BackendKind::kNccl && world.size() == 1 ? std::max(1, visible_gpus(nullptr)) : 1;
  auto backend = make_backend(kind, world, gpus);
  const int n = backend->nranks();
  const Op& op = OpRegistry::instance().find("--op", "pair");
  std::vector<RankPair> pairs = o.pairs;
  if (pairs.empty()) {
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i != j) pairs.push_back({i, j});
      }
    }
  }
  OpParams check;
  check.pairs = pairs;
  if (!pairs.empty()) op.validate(n, check);

  BenchConfig base;
  base.ops = {"pair"};
  base.sizes_bytes = o.sizes_bytes;
  base.gpus_per_process = gpus;
  base.iters = o.iters;
  base.warmup = o.warmup;
  base.reps = o.reps;
  base.checks = o.checks;
  base.timeout_s = o.timeout_s;
  if (!pairs.empty()) {  // refuse sizes that cannot fit before allocating anything
    BenchConfig probe = base;
    probe.params.pairs = {pairs.front()};
    probe.params.bidirectional = true;
    validate_for_backend(probe, *backend, world);
  }
  ReportSession report(world, *backend, o.json_path, o.csv_path, bench_config_json(base));
  std::ostream& out = std::cout;
  const bool speak = world.rank() == 0;
  if (speak) {
    out << "# pipebench pairs: " << n << " rank" << (n == 1 ? "" : "s") << " on the " << backend->name()
        << " backend, one pair at a time; sizes";
    for (auto s : o.sizes_bytes) out << " " << format_size(s);
    out << "\n";
    if (backend->name() != "nccl") {
      out << "# host ranks have no link classes: the MPI backend moves host memory between processes\n";
    } else if (report.classes()) {
      out << "#\n# link classes (nvidia-smi topo -m names)\n#       ";
      for (int j = 0; j < n; ++j) out << "  rank " << j << (j < 10 ? " " : "");
      out << "\n";
      for (int i = 0; i < n; ++i) {
        out << "  rank " << i << (i < 10 ? " " : "");
        for (int j = 0; j < n; ++j) {
          const PairInfo* p = report.classes()->pair(i, j);
          char c[16];
          std::snprintf(c, sizeof c, "%8s", p ? p->label().c_str() : "?");
          out << c;
        }
        out << "\n";
      }
    }
  }
  if (n < 2) {
    if (speak) out << "# 1 rank: no pair to measure (pairs needs 2 GPUs, or mpirun -np 2 or more)\n";
    report.finish();
    return static_cast<int>(ExitCode::kOk);
  }

  SweepSummary summary;
  for (const bool bidir : {false, true}) {
    for (const auto size : o.sizes_bytes) {
      Matrix m;
      for (const auto& pr : pairs) {
        if (bidir && pr.src > pr.dst &&
            std::find(pairs.begin(), pairs.end(), RankPair{pr.dst, pr.src}) != pairs.end()) {
          continue;  // both ways at once: measured once for the unordered pair
        }
        BenchConfig c = base;
        c.params.pairs = {pr};
        c.params.bidirectional = bidir;
        PointRunner runner(*backend, world, c);
        const Point point{&op, DType::kFloat, RedOp::kNone, size, false};
        ResultRecord rec;
        {
          Watchdog dog(c.timeout_s, world, point_name(point) + " " + std::to_string(pr.src) + ":" + std::to_string(pr.dst));
          rec = runner.measure(point);
        }
        ++summary.records;
        if (rec.wrong > 0) summary.wrong += static_cast<std::uint64_t>(rec.wrong);
        if (report.sink()) report.sink()->add(rec);
        m[{pr.src, pr.dst}] = {rec.busbw_gbps, rec.wrong};
        if (bidir) m[{pr.dst, pr.src}] = {rec.busbw_gbps, rec.wrong};
      }
      if (speak) {
        print_matrix(out, std::string(bidir ? "bidirectional" : "unidirectional") + " send/recv at " + format_size(size),
                     m, n, report);
      }
    }
  }
  report.finish();
  if (speak) {
    out << "#\n# Wrong values: " << summary.wrong << (summary.wrong ? " FAILED" : " OK") << "\n";
    out.flush();
  }
  return exit_status(summary);
}

}  // namespace pipebench
