// SPDX-License-Identifier: Apache-2.0
// The executor on the MPI runtime with real processes: a replayed 1F1B and interleaved iteration
// lasts what the closed forms of Narayanan et al. (SC21, §2.2) say when messages are tiny and
// compute is fixed: (m+p-1)(tf+tb) and (m+(p-1)/v)(tf+tb).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "megatron/plan.h"
#include "replay/executor.h"
#include "sim/schedules.h"
#include "test_world.h"

namespace pipebench {
namespace {

const World& W() { return testing::world(); }

// p = world size, per stage tf_ms forward and tb_ms backward, split evenly over v chunks.
ScheduleSpec spec_for(ScheduleKind kind, int p, int v, std::int64_t m, double tf_ms, double tb_ms, bool overlap) {
  ScheduleSpec s;
  s.kind = kind;
  s.p = p;
  s.v = v;
  s.m = m;
  s.overlap_p2p = overlap;
  s.p2p_bytes = 8;
  MegatronArgs a;
  Layout l;
  l.pp = p;
  l.microbatches = m;
  l.microbatch_group = p;
  for (int r = 0; r < p; ++r) {
    s.warmup.push_back(kind == ScheduleKind::kInterleaved ? warmup_microbatches(a, l, v, r)
                                                          : std::min<std::int64_t>(p - r - 1, m));
    s.fwd.emplace_back(static_cast<std::size_t>(v), static_cast<SimTime>(tf_ms * 1e6 / v));
    s.bwd.emplace_back(static_cast<std::size_t>(v), static_cast<SimTime>(tb_ms * 1e6 / v));
  }
  if (kind == ScheduleKind::kInterleaved) s.table = forward_table(a, l, v);
  return s;
}

// Shortest iteration (max over ranks), in ms. Ranks that share cores with each other and with the
// rest of the machine only ever add time to an iteration (a late wake-up, a preempted poll); on a
// two-core machine running four ranks a median can sit 10% above the schedule, while the shortest of
// several iterations stays within a few percent. The lower bound holds for every iteration because
// each compute task sleeps at least its duration.
double replay_ms(const ScheduleSpec& spec, int iterations) {
  auto rt = make_mpi_replay_runtime(W());
  RankJob job;
  job.pipeline_rank = W().rank();
  for (int r = 0; r < spec.p; ++r) job.pipeline_ranks.push_back(r);
  job.program = generate_schedule(spec)[static_cast<std::size_t>(W().rank())];
  register_groups(*rt, {}, job);
  (void)run_iteration(*rt, job, nullptr);  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const RankIteration it = run_iteration(*rt, job, nullptr);
    EXPECT_GT(it.compute_ns, 0);
    ms.push_back(W().max(static_cast<double>(it.iteration_ns) / 1e6));
  }
  const double shortest = *std::min_element(ms.begin(), ms.end());
  ::testing::Test::RecordProperty("replayed_ms", std::to_string(shortest));
  return shortest;
}

// Never shorter than the closed form (1% for clock granularity), at most 8% longer: the overhead of
// waking ranks and polling. Interleaved (v=2) and 1F1B differ by 16% in these tests, so a schedule of
// the wrong shape fails.
void expect_schedule_time(double got_ms, double expected_ms, const std::string& what) {
  EXPECT_GE(got_ms, 0.99 * expected_ms) << what << " replayed " << got_ms << " ms, closed form " << expected_ms
                                        << " ms";
  EXPECT_LE(got_ms, 1.08 * expected_ms) << what << " replayed " << got_ms << " ms, closed form " << expected_ms
                                        << " ms";
}

TEST(ReplayExecutorMpi, OneFOneBMatchesClosedForm) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  const int p = 4;
  const std::int64_t m = 8;
  const double tf = 2 * 4, tb = 4 * 4;  // 4 layers per stage, 2 ms forward / 4 ms backward per layer
  const double expected = static_cast<double>(m + p - 1) * (tf + tb);
  const double got = replay_ms(spec_for(ScheduleKind::kOneFOneB, p, 1, m, tf, tb, false), 6);
  expect_schedule_time(got, expected, "1F1B");
}

TEST(ReplayExecutorMpi, InterleavedMatchesClosedFormWithAndWithoutOverlap) {
  if (W().size() != 4) GTEST_SKIP() << "needs 4 ranks (mpirun -np 4), has " << W().size();
  const int p = 4, v = 2;
  const std::int64_t m = 8;
  const double tf = 2 * 4, tb = 4 * 4;
  const double expected = (static_cast<double>(m) + static_cast<double>(p - 1) / v) * (tf + tb);
  for (bool overlap : {true, false}) {
    const double got = replay_ms(spec_for(ScheduleKind::kInterleaved, p, v, m, tf, tb, overlap), 6);
    expect_schedule_time(got, expected, overlap ? "interleaved v=2 with overlap" : "interleaved v=2 without overlap");
  }
}

TEST(ReplayExecutorMpi, CollectiveOnSubGroupAndSpansCoverEveryTask) {
  if (W().size() < 2) GTEST_SKIP() << "needs at least 2 ranks, has " << W().size();
  const int n = W().size();
  auto rt = make_mpi_replay_runtime(W());
  RankJob job;
  job.pipeline_rank = W().rank();
  for (int r = 0; r < n; ++r) job.pipeline_ranks.push_back(r);
  const std::vector<int> pair = {0, n - 1};
  const std::vector<int> everyone = job.pipeline_ranks;
  const bool in_pair = W().rank() == 0 || W().rank() == n - 1;
  job.collectives.push_back({ReplayCollOp::kAllReduce, everyone, 4096, 2, "all"});
  if (in_pair) job.collectives.push_back({ReplayCollOp::kAllReduce, pair, 1 << 20, 1, "pair"});
  Task c;
  c.kind = Task::Kind::kCompute;
  c.duration = 1000000;
  job.program.tasks.push_back(c);
  for (int i = 0; i < static_cast<int>(job.collectives.size()); ++i) {
    Task t;
    t.kind = Task::Kind::kCollective;
    t.collective = i;
    job.program.tasks.push_back(t);
  }
  register_groups(*rt, {pair, everyone}, job);
  const RankIteration it = run_iteration(*rt, job, nullptr);
  ASSERT_EQ(it.spans.size(), job.program.tasks.size());
  EXPECT_GE(it.compute_ns, 1000000);
  EXPECT_GT(it.comm_busy_ns, 0);
  EXPECT_LE(it.compute_ns + it.comm_busy_ns + it.idle_ns, it.iteration_ns + 1000);
  for (std::size_t i = 1; i < it.spans.size(); ++i) EXPECT_GE(it.spans[i].start_ns, it.spans[i - 1].end_ns);
}

}  // namespace
}  // namespace pipebench
