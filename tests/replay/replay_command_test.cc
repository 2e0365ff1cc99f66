// SPDX-License-Identifier: Apache-2.0
// `pipebench replay` end to end: the built binary under mpirun, its bad input (one line, exit 2) and
// the JSON it writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/run_pipebench.h"
namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::slurp;

std::string tmp(const std::string& name) { return "/tmp/pipebench_replay_" + std::to_string(getpid()) + "_" + name; }

const char* kMpirun2 = "mpirun -np 2 --oversubscribe";

class ReplayCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    // A 2-stage plan for 2 ranks: 4 layers, 4 microbatches (valid v: 2).
    plan_ = tmp("plan.json");
    const Result r =
        run("plan --json " + plan_ +
            " -- --num-layers 4 --hidden-size 128 --num-attention-heads 4 --seq-length 32 --max-position-embeddings 32 "
            "--micro-batch-size 1"
            " --global-batch-size 4 --pipeline-model-parallel-size 2 --world-size 2 --vocab-size 512 --fp16");
    ASSERT_EQ(r.status, 0) << r.err;
  }
  static void TearDownTestSuite() { std::remove(plan_.c_str()); }
  static std::string plan_;
};
std::string ReplayCommand::plan_;

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Under mpirun, mpirun adds its own banner about the exit status: count only pipebench's lines.
int own_lines(const std::string& s) {
  int n = 0;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) n += line.rfind("pipebench:", 0) == 0;
  return n;
}

TEST_F(ReplayCommand, ReplaysEverySchedulePredictedFromItsOwnTableAndWritesTheJson) {
  const std::string json = tmp("replay.json"), traces = tmp("traces");
  const Result r = run("replay --backend mpi --plan " + plan_ + " --fwd-ms-per-layer 1 --iterations 2 --json " + json +
                           " --trace " + traces,
                       kMpirun2);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("Replay verdict"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["schema"], "pipebench.replay/1");
  EXPECT_EQ(j["world"], 2);
  ASSERT_EQ(j["schedules"].size(), 8u);  // 1f1b, interleaved:v2, gpipe, interleaved-zb:v2, zb-2p, zb-h1, zb-h2, zbv:v2
  for (const auto& s : j["schedules"]) {
    EXPECT_EQ(s["iterations_ms"].size(), 2u);
    // 4 microbatches over 2 stages of 2 layers: at least m(tf+tb) = 4 x 6 ms on every rank.
    EXPECT_GE(s["measured_iteration_ms"].get<double>(), 24.0) << s.dump();
    EXPECT_GT(s["predicted_iteration_ms"].get<double>(), 0) << s.dump();
    ASSERT_EQ(s["per_rank"].size(), 2u);
    for (const auto& p : s["per_rank"]) EXPECT_GE(p["compute_ms"].get<double>(), 24.0 * 0.99);
  }
  EXPECT_FALSE(j["verdict"]["measured_fastest"].get<std::string>().empty());
  const auto trace = nlohmann::json::parse(slurp(traces + "/replay-1f1b-v1.json"));
  EXPECT_GT(trace["traceEvents"].size(), 10u);
  std::remove(json.c_str());
  std::remove((json + ".table.json").c_str());
  EXPECT_EQ(std::system(("rm -rf " + traces).c_str()), 0);
}

// (A plain `pipebench replay` starts the plan's world itself: tests/app/host_relaunch_test.cc.)
TEST_F(ReplayCommand, WrongRankCountIsOneLineNamingBothNumbers) {
  const Result r = run("replay --backend mpi --no-predict --plan " + plan_ + " --fwd-ms-per-layer 1",
                       "mpirun -np 3 --oversubscribe");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("world is 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 were launched"), std::string::npos) << r.err;
}

TEST_F(ReplayCommand, BadInputIsOneLineAndExitTwo) {
  const std::string other = tmp("other.json");
  std::ofstream(other) << R"({"schema": "pipebench.results/1"})";
  const std::string base = "replay --backend mpi --no-predict --plan " + plan_;
  // Found while parsing, or reading the plan: a single process shows it.
  for (const std::string& args :
       {base + " --fwd-ms-per-layer nan", base + " --fwd-ms-per-layer -1", base + " --fwd-ms-per-layer 0",
        base + " --fwd-ms-per-layer 1 --iterations 0", base, base + " --fwd-ms-per-layer 1 --table x.json",
        base + " --fwd-ms-per-layer 1 --bwd-ms-per-layer 0", base + " --fwd-ms-per-layer 1 --optimizer-ms -1",
        "replay --backend mpi --no-predict --fwd-ms-per-layer 1 --plan " + other}) {
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << "\n" << r.err;
  }
  // The compute flags take predict's ranges and say so in predict's words, one message for -1 and 0.
  for (const std::string v : {"0", "-1"}) {
    for (const std::string flag : {"--fwd-ms-per-layer", "--bwd-ms-per-layer"}) {
      const std::string args =
          base + (flag == std::string("--fwd-ms-per-layer") ? "" : " --fwd-ms-per-layer 1") + " " + flag + " " + v;
      const Result r = run(args);
      EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
      EXPECT_NE(r.err.find(flag + ": " + v + " is outside (0, 1e+06]"), std::string::npos) << args << "\n" << r.err;
    }
  }
  // Found once the ranks are there.
  for (const std::string& args :
       {base + " --fwd-ms-per-layer 1 --schedule interleaved:v3", base + " --fwd-ms-per-layer 1 --schedule zigzag"}) {
    const Result r = run(args, kMpirun2);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
    EXPECT_EQ(own_lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("--schedule"), std::string::npos) << r.err;
  }
  std::remove(other.c_str());
}

// A rank that stops (the test hook makes rank 1 sleep 60 s in timed iteration 3): the job ends within
// -T with one line naming a rank and its task, and the JSON keeps the 2 iterations that finished.
TEST_F(ReplayCommand, StoppedRankEndsTheJobWithinTimeoutAndTheJsonKeepsFinishedIterations) {
  const std::string json = tmp("stall.json");
  setenv("PIPEBENCH_REPLAY_TEST_STALL", "1:2:60", 1);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r =
      run("replay --plan " + plan_ +
              " --backend mpi --schedule 1f1b --fwd-ms-per-layer 1 --iterations 5 --no-predict -T 2 --json " + json,
          kMpirun2);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsetenv("PIPEBENCH_REPLAY_TEST_STALL");
  EXPECT_NE(r.status, 0);
  EXPECT_LT(wall_s, 30.0) << "the job did not end within -T (plus start-up)";
  EXPECT_NE(r.err.find("-T 2: rank "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("iteration 3, "), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j.at("schedules").size(), 1u);
  EXPECT_EQ(j.at("schedules")[0].at("iterations_ms").size(), 2u);
  std::remove(json.c_str());
}

// A rank stopped as by `kill -STOP` (its own watchdog stops with it) before its second iteration: the rank
// that gives up names the stopped rank as the one it waits on, and what it waits in (the barrier that starts
// an iteration), never only itself and a task it was not in, which would blame the rank that was waiting.
TEST_F(ReplayCommand, WatchdogNamesTheStoppedRankTheOthersWaitOn) {
  const Result r = run(
      "replay --plan " + plan_ + " --backend mpi --schedule 1f1b --fwd-ms-per-layer 1 --iterations 3 --no-predict -T 2",
      std::string("PIPEBENCH_REPLAY_TEST_STALL=1:1:stop ") + kMpirun2);
  EXPECT_NE(r.status, 0) << r.out << r.err;
  const std::size_t first = r.err.find("pipebench: -T 2: rank ");
  ASSERT_NE(first, std::string::npos) << r.err;
  const std::string line = r.err.substr(first, r.err.find('\n', first) - first);
  EXPECT_NE(line.find("rank 0 made no progress"), std::string::npos) << line;
  EXPECT_NE(line.find("waits on rank 1 ("), std::string::npos) << line;
  EXPECT_NE(line.find("barrier"), std::string::npos) << line;
}

}  // namespace
