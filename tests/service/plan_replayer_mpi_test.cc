// SPDX-License-Identifier: Apache-2.0
// The replay step of `replay` and `run` on host ranks: the MPI runtime computes by sleeping on the host
// (the result says host-sleep whatever GPU compute was asked for), and rank 0 writes the replay file
// before each after_iteration call, holding the iterations so far; without a path nothing is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "backend/mpi_backend.h"
#include "core/json_file.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"
#include "service/plan_replayer.h"
#include "test_world.h"

namespace pipebench {
namespace {

const World& W() { return testing::world(); }

// A pipeline over every rank, one layer or two per stage.
Plan pipeline_over_every_rank() {
  const std::string pp = std::to_string(W().size());
  const MegatronArgs a = parse_megatron_args({"--num-layers",
                                              "4",
                                              "--hidden-size",
                                              "64",
                                              "--num-attention-heads",
                                              "4",
                                              "--seq-length",
                                              "32",
                                              "--max-position-embeddings",
                                              "32",
                                              "--micro-batch-size",
                                              "1",
                                              "--global-batch-size",
                                              "4",
                                              "--pipeline-model-parallel-size",
                                              pp,
                                              "--world-size",
                                              pp,
                                              "--vocab-size",
                                              "128",
                                              "--fp16"});
  return make_plan(a, W().size());
}

TEST(PlanReplayerMpi, WritesTheReplayFileAfterEveryIterationBeforeTheCallback) {
  if (W().size() < 2) GTEST_SKIP() << "needs at least 2 ranks, has " << W().size();
  const Plan plan = pipeline_over_every_rank();
  auto backend = make_mpi_backend(W());
  ReplayComputeOptions gpu;
  gpu.kind = "gemm";  // a GPU's compute: host ranks sleep instead
  PlanReplayer replayer(W(), *backend, gpu);
  ReplayOptions o;
  o.schedule = "1f1b";
  o.iterations = 2;
  o.compute.fwd_ms_per_layer = 0.01;
  const std::string path = W().broadcast(
      (std::filesystem::temp_directory_path() / ("pipebench_plan_replayer_" + std::to_string(::getpid()) + ".json"))
          .string(),
      0);
  std::vector<std::size_t> written;  // the iterations in the file at each callback
  const ReplayResult r = replayer.replay(plan, o, nullptr, path, "p.json", [&](const ReplayResult& so_far) {
    const nlohmann::json j = read_json_file("test", path);
    EXPECT_EQ(j.at("plan"), "p.json");
    written.push_back(j.at("schedules").back().at("iterations_ms").size());
    EXPECT_EQ(written.back(), so_far.schedules.back().iteration_ms.size());
  });
  if (W().rank() == 0) {
    EXPECT_EQ(written, (std::vector<std::size_t>{1, 2}));
    EXPECT_EQ(r.compute, "host-sleep");
    EXPECT_EQ(read_json_file("test", path).at("compute"), "host-sleep");
    std::filesystem::remove(path);
  } else {
    EXPECT_TRUE(written.empty());  // the callback runs on rank 0 only
  }
  o.iterations = 1;
  int calls = 0;
  (void)replayer.replay(plan, o, nullptr, "", "p.json", [&](const ReplayResult&) { ++calls; });
  EXPECT_EQ(calls, W().rank() == 0 ? 1 : 0);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace pipebench
