// SPDX-License-Identifier: Apache-2.0
// `pipebench bench`.
#include "app/bench_command.h"

#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/units.h"
#include "core/version.h"
#include "app/plan_bench.h"
#include "app/report_session.h"
#include "report/console_table.h"
#include "report/csv_writer.h"
#include "report/results_json.h"
#include "report/system_info.h"

namespace pipebench {
namespace {

// Memory NCCL may still take after initialisation (channel and proxy buffers grow on first use).
constexpr std::uint64_t kNcclReserveBytes = 1ull << 30;

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

}  // namespace

void validate_for_backend(const BenchConfig& c, const Backend& backend, const World& world) {
  for (int g : c.group) {
    if (g >= backend.nranks()) {
      throw UsageError("--group: rank " + std::to_string(g) + " is out of range (ranks are 0.." +
                       std::to_string(backend.nranks() - 1) + ")");
    }
  }
  const int nranks = c.group.empty() ? backend.nranks() : static_cast<int>(c.group.size());
  for (const auto& name : c.ops) OpRegistry::instance().find("--op", name).validate(nranks, c.params);
  if (c.graph && !backend.supports_graphs()) throw UsageError("-G: CUDA graphs need the nccl backend");

  // Refuse before allocating: the largest point's buffers against free memory (min over ranks).
  std::uint64_t need = 0;
  std::string what;
  for (const auto& p : plan_points(c)) {
    const Sizing s = p.op->sizing(p.requested_bytes, dtype_size(p.dtype), nranks, c.params);
    if (s.send_bytes + s.recv_bytes > need) {
      need = s.send_bytes + s.recv_bytes;
      what = std::string(p.op->name()) + " at " + format_size(p.requested_bytes);
    }
  }
  const bool gpu = backend.name() == "nccl";
  const std::uint64_t reserve = gpu ? kNcclReserveBytes : 0;
  const std::uint64_t free_bytes = world.min_u64(backend.nlocal() ? backend.free_memory_bytes() : UINT64_MAX);
  if (need + reserve > free_bytes) {
    throw UsageError("-e/--sizes: " + what + " needs " + gib(need) + " of buffers per rank, but only " +
                     gib(free_bytes) + " of " + (gpu ? "GPU" : "host") + " memory is free on the fullest rank" +
                     (gpu ? " (" + gib(reserve) + " is kept for NCCL)" : ""));
  }
}

nlohmann::json bench_config_json(const BenchConfig& c) {
  std::vector<std::string> dtypes, redops;
  for (auto t : c.dtypes) dtypes.emplace_back(dtype_name(t));
  for (auto r : c.redops) redops.emplace_back(redop_name(r));
  return {{"ops", c.ops},
          {"sizes_bytes", c.sizes_bytes},
          {"dtypes", dtypes},
          {"redops", redops},
          {"gpus_per_process", c.gpus_per_process},
          {"iters", c.iters},
          {"warmup", c.warmup},
          {"reps", c.reps},
          {"checks", c.checks},
          {"graph", c.graph},
          {"group", c.group},
          {"point_budget_s", c.point_budget_s}};
}

void print_preamble(std::ostream& out, const BenchConfig& c, const Backend& backend, const nlohmann::json& system) {
  out << "# pipebench " << kToolVersion << "  backend " << backend.name();
  for (const auto& [k, v] : backend.versions()) out << "  " << k << " " << v;
  out << "\n# nranks " << backend.nranks() << " (" << system["processes"].get<int>() << " process"
      << (system["processes"].get<int>() == 1 ? "" : "es") << " x " << c.gpus_per_process << " "
      << (backend.name() == "nccl" ? "GPU" : "host rank") << ")  warmup " << c.warmup << "  iters " << c.iters
      << (c.point_budget_s > 0 ? " (max; fewer for slow points)" : "") << "  reps " << c.reps << "  validation "
      << c.checks << "  graph " << (c.graph ? 1 : 0) << "\n";
  if (!c.group.empty()) {
    out << "# group";
    for (int g : c.group) out << " " << g;
    out << " (the ops run on these ranks only)\n";
  }
  if (!c.params.pairs.empty()) {
    out << "# pairs";
    for (const auto& p : c.params.pairs) out << " " << p.src << ":" << p.dst;
    out << (c.params.bidirectional ? " (each in both directions at once)" : " (one way)")
        << "; algbw = busbw = one message's bytes / time\n";
  }
  out << "# time = median over reps of (batch time, slowest rank) / iters\n#\n# Using devices\n";
  for (const auto& d : system["devices"]) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "#  Rank %2d Pid %6ld on %10s device %2d [%s] %s\n", d["rank"].get<int>(),
                  d["pid"].get<long>(), d["host"].get<std::string>().c_str(), d["device"].get<int>(),
                  d["bus_id"].get<std::string>().c_str(), d["model"].get<std::string>().c_str());
    out << buf;
  }
  out.flush();
}

int exit_status(const SweepSummary& s) {
  if (s.wrong > 0) return static_cast<int>(ExitCode::kWrongData);
  if (s.errors > 0) return static_cast<int>(ExitCode::kRuntimeError);
  return static_cast<int>(ExitCode::kOk);
}

int run_bench_command(const BenchConfig& c, const World& world, std::vector<ResultRecord>* collected) {
  if (!c.plan_path.empty()) return run_plan_bench(c, world);
  auto backend = make_backend(c.backend, world, c.gpus_per_process);
  validate_for_backend(c, *backend, world);
  return run_bench_on(*backend, c, world, collected);
}

int run_bench_on(Backend& full, const BenchConfig& c, const World& world, std::vector<ResultRecord>* collected) {
  std::unique_ptr<Backend> sub;
  if (!c.group.empty()) sub = full.split(c.group);
  Backend& comm = sub ? *sub : full;
  ReportSession report(world, full, c.json_path, c.csv_path, bench_config_json(c), collected);
  if (world.rank() == 0 && !wants_benchmark_display(c.benchmark_args)) {
    print_preamble(std::cout, c, full, report.system());
    if (report.classes()) {
      std::vector<int> ranks;
      for (int i = 0; i < comm.nranks(); ++i) ranks.push_back(comm.global_rank(i));
      const std::string cls = report.classes()->class_of(ranks);
      if (!cls.empty()) std::cout << "# link class of these ranks (the worst pair): " << cls << "\n";
    }
    report.add_sink(std::make_unique<ConsoleTable>(std::cout));
  }
  const SweepSummary summary = run_sweep(comm, world, c, plan_points(c), report.sink());
  report.finish();
  return exit_status(summary);
}

}  // namespace pipebench
