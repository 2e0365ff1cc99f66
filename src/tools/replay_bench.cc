// SPDX-License-Identifier: Apache-2.0
// `make bench` (replay part): what the replay itself costs. 1F1B and interleaved (v = 2) on every rank
// of the job with zero compute and 8-byte messages, so an iteration is nothing but the executor, the
// runtime's calls and the transport's latency: time per task in us, on the MPI or the NCCL backend.
//   mpirun -np 2 replay_bench --backend mpi|nccl [--iterations N]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend_factory.h"
#include "backend/replay_runtime.h"
#include "core/error.h"
#include "launch/world.h"
#include "megatron/plan.h"
#include "replay/executor.h"
#include "sim/schedules.h"

namespace {

using namespace pipebench;

ScheduleSpec zero_compute_spec(int p, int v, std::int64_t m) {
  ScheduleSpec s;
  s.id = {v > 1 ? "interleaved" : "1f1b", v};
  Layout l;
  l.pp = p;
  l.microbatches = m;
  l.microbatch_group = p;
  s.shape = megatron_shape(MegatronArgs{}, l, s.id);
  s.p2p_bytes = 8;
  for (int r = 0; r < p; ++r) {
    s.fwd.emplace_back(static_cast<std::size_t>(v), 0);
    s.bwd.emplace_back(static_cast<std::size_t>(v), 0);
  }
  return s;
}

// Median iteration (max over ranks) in us, and the most tasks any rank executes.
std::pair<double, std::size_t> time_schedule(const World& world, ReplayRuntime& rt, ReplayComms& comms,
                                             const ScheduleSpec& spec, int iterations) {
  RankJob job;
  job.pipeline_rank = world.rank();
  for (int r = 0; r < spec.shape.p; ++r) job.pipeline_ranks.push_back(r);
  const auto programs = generate_schedule(spec);
  job.program = programs[static_cast<std::size_t>(world.rank())];
  std::size_t most = 0;
  for (const auto& p : programs) most = std::max(most, p.tasks.size());
  for (int i = 0; i < 3; ++i) (void)run_iteration(rt, comms, job, nullptr);
  std::vector<double> us;
  for (int i = 0; i < iterations; ++i)
    us.push_back(world.max(static_cast<double>(run_iteration(rt, comms, job, nullptr).iteration_ns) / 1e3));
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], most};
}

int bench(int argc, char** argv, const World& world) {
  std::string backend = "mpi";
  int iterations = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--backend")) backend = argv[i + 1];
    if (!std::strcmp(argv[i], "--iterations")) iterations = std::max(1, std::atoi(argv[i + 1]));
  }
  if (world.size() < 2) throw UsageError("replay_bench: run it on at least 2 ranks (mpirun -np 2)");
  auto be = make_backend(backend == "nccl" ? BackendKind::kNccl : BackendKind::kMpi, world, 1);
  auto rt = backend == "nccl" ? make_nccl_replay_runtime(world, *be, ReplayComputeOptions{})
                              : make_mpi_replay_runtime(world, *be);
  ReplayComms comms(*be);
  const int p = world.size();
  if (world.rank() == 0) {
    std::printf(
        "# replay overhead on the %s backend, %d ranks: zero compute, 8-byte messages, median of %d iterations\n",
        backend.c_str(), p, iterations);
    std::printf("#  schedule          microbatches  tasks/rank  iteration (us)  per task (us)\n");
  }
  for (int v : {1, 2}) {
    const std::int64_t m = 8 * p;
    const auto [us, tasks] = time_schedule(world, *rt, comms, zero_compute_spec(p, v, m), iterations);
    if (world.rank() == 0) {
      std::printf("   %-16s %13lld %11zu %15.1f %14.2f\n", v > 1 ? "interleaved v=2" : "1f1b",
                  static_cast<long long>(m), tasks, us, us / static_cast<double>(tasks));
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto world = World::create(&argc, &argv);
  try {
    return bench(argc, argv, *world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replay_bench: %s\n", e.what());
    if (world->size() > 1) world->abort(1);
    return 1;
  }
}
