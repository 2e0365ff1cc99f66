// SPDX-License-Identifier: Apache-2.0
// bench --plan on a real GPU records the pass costs it measured on rank 0's GPU in its results file, with
// every term in the range a GPU can give, and the CUDA_DEVICE_MAX_CONNECTIONS it ran with. Skips without
// a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "backend/backend_factory.h"
#include "cli/run_pipebench.h"
#include "io/results_io.h"
#include "trace/job_fixture.h"

namespace pipebench {
namespace {

void expect_sane(const Stats& s, double max_us, const char* what) {
  EXPECT_EQ(s.samples, 50u) << what;
  EXPECT_TRUE(std::isfinite(s.median_us)) << what;
  EXPECT_GE(s.min_us, 0) << what;
  EXPECT_LE(s.min_us, s.median_us) << what;
  EXPECT_LE(s.median_us, s.max_us) << what;
  EXPECT_LT(s.median_us, max_us) << what;
}

TEST(PlanPassCostsGpu, BenchPlanRecordsEveryTermInRange) {
  std::string why;
  if (visible_gpus(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
  const std::string dir = testing::make_temp_dir("plan_pass_costs_gpu");
  ASSERT_FALSE(dir.empty());
  // Two stages: their 64 KiB activation is the P2P message (on one GPU the plan's messages are left out).
  const auto plan = e2e::run("plan --json " + dir +
                             "/plan.json -- --num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length "
                             "128 --max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 "
                             "--pipeline-model-parallel-size 2 --world-size 2 --vocab-size 128 --bf16");
  ASSERT_EQ(plan.status, 0) << plan.err;
  for (const std::string connections : {"", "1"}) {
    const std::string env = connections.empty() ? "env -u CUDA_DEVICE_MAX_CONNECTIONS "
                                                : "env CUDA_DEVICE_MAX_CONNECTIONS=" + connections + " ";
    const auto r = e2e::run_shell(env + PIPEBENCH_BIN " bench --plan " + dir + "/plan.json --json " + dir +
                                  "/r.json -n 2 -w 1 --reps 2 --quiet");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("# pass costs: a P2P call as Megatron issues it (send + receive of 65536 B"),
              std::string::npos)
        << r.out;
    const ResultSet rs = load_results("--table", dir + "/r.json");
    ASSERT_TRUE(rs.pass_costs.has_value()) << r.out;
    const PassCosts& c = *rs.pass_costs;
    EXPECT_EQ(c.p2p_bytes, 65536);
    EXPECT_FALSE(c.gpu.empty());
    EXPECT_EQ(c.device_max_connections, connections);
    expect_sane(c.call_device_us, 10000, "call_device_us");
    expect_sane(c.call_host_us, 20000, "call_host_us");
    expect_sane(c.sync_gap_us, 10000, "sync_gap_us");
    expect_sane(c.gemm_alone_us, 100000, "gemm_alone_us");
    expect_sane(c.gemm_beside_nccl_us, 200000, "gemm_beside_nccl_us");
    EXPECT_GT(c.nccl_beside_us, 0);
    EXPECT_GE(c.comm_sm_slowdown(), 0);
    EXPECT_LT(c.comm_sm_slowdown(), 5);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
