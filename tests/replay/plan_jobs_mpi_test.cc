// SPDX-License-Identifier: Apache-2.0
// The in-schedule collectives of a plan on real ranks: a tp=2 pp=2 plan on 4 MPI ranks issues every
// planned TP collective (and the after-pipeline ones) on its real group, and they lengthen the
// iteration by about their own time against the same schedule without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "backend/mpi_backend.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"
#include "replay/executor.h"
#include "replay/plan_jobs.h"
#include "test_world.h"

namespace pipebench {
namespace {

const World& W() { return testing::world(); }

Plan tp2_pp2_plan() {
  // hidden 1024, seq 512, fp16: 1 MiB per TP all-reduce, so the collectives take visible time.
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "4",
                                              "--hidden-size",
                                              "1024",
                                              "--num-attention-heads",
                                              "8",
                                              "--seq-length",
                                              "512",
                                              "--max-position-embeddings",
                                              "512",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "4",
                                              "--tensor-model-parallel-size",
                                              "2",
                                              "--pipeline-model-parallel-size",
                                              "2",
                                              "--world-size",
                                              "4",
                                              "--vocab-size",
                                              "1000",
                                              "--fp16"});
  return make_plan(a, 4);
}

struct Measured {
  double iteration_ms = 0;    // shortest iteration, max over ranks
  double inside_comm_ms = 0;  // least time in in-schedule collectives, max over ranks
  std::map<std::string, std::int64_t> calls;
};

Measured& take(Measured& m, const RankJob& job, const RankIteration& it, std::size_t inside_collectives) {
  m.calls = it.collective_calls;
  std::int64_t ns = 0;
  for (std::size_t k = 0; k < job.program.tasks.size(); ++k) {
    const Task& t = job.program.tasks[k];
    if (t.kind == Task::Kind::kCollective && static_cast<std::size_t>(t.collective) < inside_collectives)
      ns += it.spans[k].end_ns - it.spans[k].start_ns;
  }
  m.iteration_ms = std::min(m.iteration_ms, W().max(static_cast<double>(it.iteration_ns) / 1e6));
  m.inside_comm_ms = std::min(m.inside_comm_ms, W().max(static_cast<double>(ns) / 1e6));
  return m;
}

// The two jobs in turns (with, without, with, ...), so that a machine busy with other work for a while
// slows both alike; the shortest iteration of each, since shared cores only ever add time.
std::pair<Measured, Measured> replay_in_turns(ReplayRuntime& rt, ReplayComms& comms, const RankJob& with,
                                              const RankJob& without, std::size_t inside_collectives, int iterations) {
  (void)run_iteration(rt, comms, with, nullptr);  // warm-up
  (void)run_iteration(rt, comms, without, nullptr);
  const double inf = std::numeric_limits<double>::infinity();
  Measured a{inf, inf, {}}, b{inf, inf, {}};
  for (int i = 0; i < iterations; ++i) {
    take(a, with, run_iteration(rt, comms, with, nullptr), inside_collectives);
    take(b, without, run_iteration(rt, comms, without, nullptr), inside_collectives);
  }
  return {a, b};
}

TEST(PlanJobsMpi, TensorParallelCollectivesAreIssuedAsPlannedAndTakeTheirTime) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  const Plan plan = tp2_pp2_plan();
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  PlanJobs pj = plan_jobs(plan, c, W().rank(), "1f1b");
  ASSERT_EQ(pj.jobs.size(), 1u);
  RankJob& job = pj.jobs[0];
  auto backend = make_mpi_backend(W());
  auto rt = make_mpi_replay_runtime(W(), *backend);
  ReplayComms comms(*backend);
  register_groups(comms, pj.all_groups, job);

  // The plan's collectives of this rank, per op, per iteration; the after-pipeline ones come last in job.
  std::map<std::string, std::int64_t> planned;
  std::size_t after = 0;
  for (const auto& msg : plan.schedules.at(0).messages) {
    if (msg.rank != W().rank() || msg.op.is_p2p()) continue;
    planned[std::string(msg.op.name())] += msg.count;
    after += msg.phase == Phase::kAfter;
  }
  ASSERT_GE(planned["all_reduce"], 4 * 2 * 4);  // 4 per layer, 2 layers, m = 4
  const std::size_t inside = job.collectives.size() - after;
  for (std::size_t i = 0; i < inside; ++i) EXPECT_EQ(job.collectives[i].group.size(), 2u) << job.collectives[i].label;

  RankJob without = job;  // the same schedule and compute without the in-schedule collectives
  without.program.tasks.clear();
  for (const auto& t : job.program.tasks) {
    if (t.kind != Task::Kind::kCollective || static_cast<std::size_t>(t.collective) >= inside)
      without.program.tasks.push_back(t);
  }
  const auto [with, base] = replay_in_turns(*rt, comms, job, without, inside, 5);
  EXPECT_EQ(with.calls, planned);
  const double extra_ms = with.iteration_ms - base.iteration_ms;
  ::testing::Test::RecordProperty("extra_ms", std::to_string(extra_ms));
  ::testing::Test::RecordProperty("inside_comm_ms", std::to_string(with.inside_comm_ms));
  ASSERT_GT(with.inside_comm_ms, 0);
  // Every stage's steps lengthen by its collectives; the critical path crosses both stages, so the
  // iteration grows by about one rank's collective time (loose bounds: 2 shared CPU cores).
  EXPECT_GT(extra_ms, 0.5 * with.inside_comm_ms)
      << "with " << with.iteration_ms << " ms, without " << base.iteration_ms;
  EXPECT_LT(extra_ms, 3.0 * with.inside_comm_ms)
      << "with " << with.iteration_ms << " ms, without " << base.iteration_ms;
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// cp=2 pp=2 on 4 ranks with the given --cp-comm-type: the KV ring (sendrecv) or the all-to-all runs on
// its CP group, and every planned call of this rank is issued once per iteration.
void replay_cp_plan(const char* cp_comm_type, const std::string& expected_op) {
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "2",
                                              "--hidden-size",
                                              "256",
                                              "--num-attention-heads",
                                              "4",
                                              "--seq-length",
                                              "256",
                                              "--max-position-embeddings",
                                              "256",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "4",
                                              "--context-parallel-size",
                                              "2",
                                              "--cp-comm-type",
                                              cp_comm_type,
                                              "--pipeline-model-parallel-size",
                                              "2",
                                              "--world-size",
                                              "4",
                                              "--vocab-size",
                                              "1000",
                                              "--fp16"});
  const Plan plan = make_plan(a, 4);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.2;
  PlanJobs pj = plan_jobs(plan, c, W().rank(), "1f1b");
  ASSERT_EQ(pj.jobs.size(), 1u);
  RankJob& job = pj.jobs[0];
  auto backend = make_mpi_backend(W());
  auto rt = make_mpi_replay_runtime(W(), *backend);
  ReplayComms comms(*backend);
  register_groups(comms, pj.all_groups, job);
  std::map<std::string, std::int64_t> planned;
  for (const auto& msg : plan.schedules.at(0).messages) {
    if (msg.rank != W().rank() || msg.op.is_p2p()) continue;
    planned[std::string(msg.op.name())] += msg.count;
  }
  ASSERT_GT(planned[expected_op], 0) << cp_comm_type << ": no CP messages in the plan";
  // The CP messages named "backward" are issued in backward steps, those named "forward" in forward steps.
  for (const auto& t : job.program.tasks) {
    if (t.kind != Task::Kind::kCollective) continue;
    const std::string& label = job.collectives.at(static_cast<std::size_t>(t.collective)).label;
    if (label.rfind("CP ", 0) != 0) continue;
    EXPECT_EQ(t.pass == Pass::kForward, label.find("backward") == std::string::npos) << label;
    EXPECT_EQ(job.collectives.at(static_cast<std::size_t>(t.collective)).group.size(), 2u) << label;
  }
  (void)run_iteration(*rt, comms, job, nullptr);
  const RankIteration it = run_iteration(*rt, comms, job, nullptr);
  EXPECT_EQ(it.collective_calls, planned);
}

TEST(PlanJobsMpi, ContextParallelRingIsReplayedOnItsGroup) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  replay_cp_plan("p2p", "sendrecv");
}

TEST(PlanJobsMpi, ContextParallelAllToAllIsReplayedOnItsGroup) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  replay_cp_plan("a2a", "alltoall");
}

TEST(PlanJobsMpi, MoeAllToAllIsReplayedOnItsEpGroup) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  // 8 experts on EP 2, pp 2, world 4: the expert grid is ep 2 x pp 2, so the EP groups are {0,1} and
  // {2,3}; the dispatch and combine all-to-alls (and the tokens-per-expert gather) run there.
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "2",
                                              "--hidden-size",
                                              "256",
                                              "--num-attention-heads",
                                              "4",
                                              "--seq-length",
                                              "256",
                                              "--max-position-embeddings",
                                              "256",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "4",
                                              "--pipeline-model-parallel-size",
                                              "2",
                                              "--world-size",
                                              "4",
                                              "--vocab-size",
                                              "1000",
                                              "--fp16",
                                              "--num-experts",
                                              "8",
                                              "--expert-model-parallel-size",
                                              "2",
                                              "--moe-token-dispatcher-type",
                                              "alltoall"});
  const Plan plan = make_plan(a, 4);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.2;
  PlanJobs pj = plan_jobs(plan, c, W().rank(), "1f1b");
  ASSERT_EQ(pj.jobs.size(), 1u);
  RankJob& job = pj.jobs[0];
  auto backend = make_mpi_backend(W());
  auto rt = make_mpi_replay_runtime(W(), *backend);
  ReplayComms comms(*backend);
  register_groups(comms, pj.all_groups, job);
  std::map<std::string, std::int64_t> planned;
  for (const auto& msg : plan.schedules.at(0).messages) {
    if (msg.rank != W().rank() || msg.op.is_p2p()) continue;
    planned[std::string(msg.op.name())] += msg.count;
  }
  ASSERT_GT(planned["alltoall"], 0) << "no MoE all-to-all in the plan";
  const int first = W().rank() / 2 * 2;
  for (const auto& t : job.program.tasks) {
    if (t.kind != Task::Kind::kCollective) continue;
    const auto& coll = job.collectives.at(static_cast<std::size_t>(t.collective));
    if (coll.label.rfind("MoE ", 0) != 0) continue;
    EXPECT_EQ(coll.group, (std::vector<int>{first, first + 1})) << coll.label;
    EXPECT_EQ(t.pass == Pass::kForward, coll.label.find("backward") == std::string::npos) << coll.label;
  }
  (void)run_iteration(*rt, comms, job, nullptr);
  const RankIteration it = run_iteration(*rt, comms, job, nullptr);
  EXPECT_EQ(it.collective_calls, planned);
}

}  // namespace
}  // namespace pipebench
