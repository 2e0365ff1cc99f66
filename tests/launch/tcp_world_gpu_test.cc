// SPDX-License-Identifier: Apache-2.0
// A torchrun-style launch on GPUs: a world of 1 over the TCP rendezvous runs the NCCL backend (auto picks
// it; the unique id goes through World::broadcast), and with two GPUs two pipebench processes, one per GPU
// by LOCAL_RANK, measure one all_reduce together. Skips with a reason without a GPU.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <string>

#include "backend/backend_factory.h"
#include "cli/run_pipebench.h"
#include "collectives/registry.h"
#include "harness/point_runner.h"
#include "launch/free_port.h"
#include "launch/tcp_world.h"

namespace pipebench {
namespace {

TEST(TcpWorldGpu, AWorldOfOneRunsTheNcclBackend) {
  std::string why;
  if (visible_gpus(&why) == 0) GTEST_SKIP() << "no GPU: " << why;
  const std::map<std::string, std::string> env = {{"RANK", "0"},
                                                  {"WORLD_SIZE", "1"},
                                                  {"LOCAL_RANK", "0"},
                                                  {"MASTER_ADDR", "127.0.0.1"},
                                                  {"MASTER_PORT", std::to_string(free_loopback_port(29555))}};
  const auto world = tcp_world_from_env([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
  ASSERT_NE(world, nullptr);
  ASSERT_TRUE(world->tcp_rendezvous());
  EXPECT_EQ(resolve_backend(BackendKind::kAuto, *world), BackendKind::kNccl);
  const auto backend = make_backend(BackendKind::kAuto, *world, 1);
  MeasureSettings c;
  const SweepSpec sweep;
  c.iters = 3;
  c.warmup = 1;
  c.reps = 2;
  c.checks = 1;
  PointRunner runner(*backend, *world, c, sweep);
  const Op& op = OpRegistry::instance().find("--op", "all_reduce");
  const ResultRecord rec = runner.measure({&op, DType::kFloat, RedOp::kSum, 1 << 20, false});
  EXPECT_EQ(rec.wrong, 0);
  EXPECT_EQ(rec.nranks, 1);
}

TEST(TcpWorldGpu, TwoProcessesMeasureTogetherOverTcp) {
  std::string why;
  if (visible_gpus(&why) < 2) GTEST_SKIP() << "fewer than two GPUs: " << why;
  const std::string env =
      "WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(free_loopback_port(29555)) +
      " PIPEBENCH_RENDEZVOUS_TIMEOUT_S=60 ";
  const std::string args = " bench --op all_reduce -b 8 -e 1M -f 32 --quiet";
  const auto r = e2e::run_shell("(RANK=1 LOCAL_RANK=1 " + env + PIPEBENCH_BIN + args +
                                " >/dev/null 2>&1 &) ; RANK=0 LOCAL_RANK=0 " + env + PIPEBENCH_BIN + args);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# Avg bus bandwidth"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipebench
