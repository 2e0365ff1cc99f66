// SPDX-License-Identifier: Apache-2.0
// What the replay's watchdog says a waiting rank waits on, for every kind of task.
#include "replay/progress_watchdog.h"

#include <gtest/gtest.h>

#include <string>

#include "collectives/registry.h"

namespace pipebench {
namespace {

// Global rank 2, pipeline rank 1 of the pipeline {0, 2, 5}: a compute step, a blocking send+recv call,
// an asynchronous receive and its wait, and an all_reduce over {2, 3, 6}.
RankJob job() {
  RankJob j;
  j.pipeline_rank = 1;
  j.pipeline_ranks = {0, 2, 5};
  Task compute;
  compute.mb = 0;
  j.program.tasks.push_back(compute);
  const P2POp both[] = {{true, 2, 4096, 1}, {false, 0, 2048, 2}};
  Task call;
  call.name = "send_forward_recv_backward";
  j.program.add_p2p(call, both, 2);
  const P2POp recv[] = {{false, 0, 512, 3}};
  Task async;
  async.blocking = false;
  async.handle = 7;
  async.name = "recv_forward";
  j.program.add_p2p(async, recv, 1);
  Task wait;
  wait.kind = Task::Kind::kWait;
  wait.handle = 7;
  wait.name = "wait";
  j.program.tasks.push_back(wait);
  j.collectives.push_back({&OpRegistry::instance().find("--op", "all_reduce"),
                           DType::kFloat,
                           1024,
                           1,
                           {2, 3, 6},
                           "all_reduce of the data-parallel group"});
  Task coll;
  coll.kind = Task::Kind::kCollective;
  coll.collective = 0;
  j.program.tasks.push_back(coll);
  return j;
}

TEST(ProgressWatchdog, NamesThePeersOfAP2PCallWithWhatMovesEachWay) {
  EXPECT_EQ(waited_on(job(), 1, 2, 8), "waits on ranks 0, 5 (sends 4096 B to rank 5, receives 2048 B from rank 0)");
}

TEST(ProgressWatchdog, AWaitNamesThePeerOfTheCallItCompletes) {
  EXPECT_EQ(waited_on(job(), 3, 2, 8), "waits on rank 0 (receives 512 B from rank 0)");
}

TEST(ProgressWatchdog, ACollectiveNamesTheOtherMembersOfItsGroup) {
  EXPECT_EQ(waited_on(job(), 4, 2, 8), "waits on ranks 3, 6 (all_reduce of the data-parallel group)");
}

TEST(ProgressWatchdog, AComputingRankWaitsOnNoOne) {
  EXPECT_EQ(waited_on(job(), 0, 2, 8), "waits on no rank (computing: this rank is the one the others wait for)");
}

TEST(ProgressWatchdog, TheIterationsBarriersNameEveryOtherRankUpToEight) {
  EXPECT_EQ(waited_on(job(), kIterationStart, 1, 2),
            "waits on rank 0 (the barrier every rank enters to start an iteration)");
  EXPECT_EQ(waited_on(job(), 5, 0, 12),
            "waits on ranks 1, 2, 3, 4, 5, 6, 7, 8, ... (11 in all) (the reductions of the iteration's times)");
}

}  // namespace
}  // namespace pipebench
