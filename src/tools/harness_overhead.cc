// SPDX-License-Identifier: Apache-2.0
// `make bench`: the pipebench harness against a bare loop, all_reduce at 8 B, 256 KiB, 64 MiB and
// 1 GiB. Targets (DESIGN.md §7): busbw at >= 64 MiB at least 0.98x the bare loop; with CUDA graphs,
// 8-byte latency within 1 us of the bare loop. Rounds alternate bare and harness so drift hits both.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "backend/backend_factory.h"
#include "collectives/registry.h"
#include "core/error.h"
#include "core/stats.h"
#include "core/units.h"
#include "harness/point_runner.h"
#include "launch/world.h"
#include "tools/bare_loops/bare_loop.h"

namespace pipebench {
namespace {

constexpr double kMinBusbwRatio = 0.98;  // DESIGN.md §7
constexpr double kMaxGraphLatencyGapUs = 1.0;
constexpr int kRounds = 3;

struct Row {
  std::size_t bytes;
  bool graph;
  double bare_us, harness_us;
};

int run(int argc, char** argv) {
  CLI::App app{"harness overhead: pipebench's harness against a bare all_reduce loop", "harness_overhead"};
  std::string backend_name = "auto";
  int gpus = 0;
  app.add_option("--backend", backend_name, "nccl, mpi or auto");
  app.add_option("-g,--ngpus", gpus, "GPUs (nccl; default: all visible)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  auto world = World::create(&argc, &argv);
  const BackendKind kind = resolve_backend(parse_backend_kind("--backend", backend_name), *world);
  const bool gpu = kind == BackendKind::kNccl;
  if (gpu && gpus == 0) gpus = std::max(1, visible_gpus(nullptr));
  if (!gpu) gpus = 1;
  auto backend = make_backend(kind, *world, gpus);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");

  std::unique_ptr<BareNcclLoop> bare_gpu;
#if PB_HAVE_NCCL
  if (gpu) bare_gpu = std::make_unique<BareNcclLoop>(gpus);
#endif
  std::vector<Row> rows;
  const SweepSpec sweep;  // the default op parameters; the points are given below
  const std::vector<std::size_t> sizes = {8, 256u << 10, 64u << 20, 1u << 30};
  for (bool graph : gpu ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
    for (std::size_t bytes : sizes) {
      MeasureSettings c;
      c.iters = gpu ? 20 : (bytes >= (64u << 20) ? 2 : 20);
      c.reps = gpu ? (bytes >= (1u << 30) ? 10 : 30) : (bytes >= (64u << 20) ? 3 : 10);
      c.warmup = 5;
      c.checks = 0;
      c.graph = graph;
      PointRunner runner(*backend, *world, c, sweep);
      std::vector<double> bare, harness;
      for (int round = 0; round < kRounds; ++round) {
        if (gpu) {
          bare.push_back(bare_gpu->median_us(bytes, c.iters, c.reps, graph));
        } else {
#if PB_HAVE_MPI
          bare.push_back(bare_mpi_allreduce_median_us(*world, bytes, c.iters, c.reps));
#endif
        }
        harness.push_back(runner.measure({&op, DType::kFloat, RedOp::kSum, bytes, false}).time_us);
      }
      rows.push_back({bytes, graph, summarize(bare).median_us, summarize(harness).median_us});
    }
  }
  if (world->rank() != 0) return 0;
  std::printf("# harness overhead: all_reduce float sum, backend %s, %d rank%s (%d process%s x %d)\n",
              std::string(backend->name()).c_str(), backend->nranks(), backend->nranks() == 1 ? "" : "s", world->size(),
              world->size() == 1 ? "" : "es", gpus);
  std::printf("# time = median over %d alternating rounds of each side's median per-op time\n", kRounds);
  std::printf("#       size  graph   bare (us)  harness (us)  busbw ratio  target\n");
  bool ok = true;
  for (const auto& r : rows) {
    const double ratio = r.harness_us > 0 ? r.bare_us / r.harness_us : 0;  // busbw_h / busbw_b
    std::string target = "-";
    if (!r.graph && r.bytes >= (64u << 20)) {
      const bool pass = ratio >= kMinBusbwRatio;
      ok = ok && pass;
      target = std::string(pass ? "PASS" : "FAIL") + " (>= 0.98x)";
    }
    if (r.graph && r.bytes == 8) {
      const bool pass = r.harness_us - r.bare_us <= kMaxGraphLatencyGapUs;
      ok = ok && pass;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s (%+.2f us, <= +1 us)", pass ? "PASS" : "FAIL", r.harness_us - r.bare_us);
      target = buf;
    }
    std::printf("%12s  %5s  %10.2f  %12.2f  %11.3f  %s\n", format_size(r.bytes).c_str(), r.graph ? "yes" : "no",
                r.bare_us, r.harness_us, ratio, target.c_str());
  }
  if (!gpu) std::printf("# no GPU: the CUDA-graph latency target needs the nccl backend and was not measured\n");
  std::printf("# verdict: %s\n", ok ? "harness overhead within targets" : "harness overhead OUT OF TARGET");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace pipebench

int main(int argc, char** argv) {
  try {
    return pipebench::run(argc, argv);
  } catch (const pipebench::UsageError& e) {
    std::fprintf(stderr, "harness_overhead: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "harness_overhead: %s\n", e.what());
    return 1;
  }
}
