// SPDX-License-Identifier: Apache-2.0
// The prediction against the replay, through the binary, as a user checks it on a machine without a
// GPU: 4 ranks on the MPI backend, a 4-stage plan, its own bench --plan table, and compute of 1/2 and
// 2/4 ms per layer. Every schedule's predicted iteration is within 10 % of the replayed median and both
// name the same fastest schedule (or the prediction's band covers the replay's): the grid on a small
// machine, where four ranks share two cores. The 16-core grid (5 %) is measured on the GPU node. A schedule with
// post-validation is replayed back to back and held against its steady state.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::slurp;

const char* kMpirun4 = "CUDA_VISIBLE_DEVICES= mpirun -np 4 --oversubscribe -x CUDA_VISIBLE_DEVICES";

class PredictionGrid : public pipebench::e2e::TempFolder {};

// One measurement of the grid: the problems found (none when every cell holds).
std::vector<std::string> measure_grid(const std::string& dir) {
  std::vector<std::string> problems;
  const std::string plan = dir + "/plan.json", table = dir + "/table.json", out = dir + "/replay.json";
  const Result bench = run("bench --plan " + plan + " --backend mpi --quiet --json " + table, kMpirun4);
  if (bench.status != 0) return {"bench --plan: exit " + std::to_string(bench.status) + "\n" + bench.err};
  for (const char* compute :
       {"--fwd-ms-per-layer 1 --bwd-ms-per-layer 2", "--fwd-ms-per-layer 2 --bwd-ms-per-layer 4"}) {
    const Result replay = run("replay --plan " + plan + " --table " + table +
                                  " --backend mpi --schedule all --iterations 3 --quiet --json " + out + " " + compute,
                              kMpirun4);
    if (replay.status != 0)
      return {std::string(compute) + ": replay exit " + std::to_string(replay.status) + "\n" + replay.err};
    const auto doc = nlohmann::json::parse(slurp(out));
    if (!doc.at("complete").get<bool>()) problems.push_back(std::string(compute) + ": replay incomplete");
    int schedules = 0;
    for (const auto& s : doc.at("schedules")) {
      const double predicted = s.at("predicted_iteration_ms").get<double>();
      const double replayed = s.at("measured_iteration_ms").get<double>();
      if (!(replayed > 0) || std::fabs(predicted - replayed) / replayed > 0.10) {
        problems.push_back(std::string(compute) + " " + s.at("name").get<std::string>() + ": predicted " +
                           std::to_string(predicted) + " ms, replayed " + std::to_string(replayed) + " ms");
      }
      ++schedules;
    }
    if (schedules < 3) problems.push_back(std::string(compute) + ": fewer than 3 schedules");  // 1f1b, v2, gpipe
    if (!doc.at("verdict").at("agree").get<bool>()) problems.push_back(std::string(compute) + ": verdicts disagree");
    if (!problems.empty()) problems.push_back(replay.out);
  }
  return problems;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

// A bias of the model fails both measurements; a burst of load from other processes during one (the
// table measured while the cores were busy) does not fail the test, and is printed.
TEST_F(PredictionGrid, FourRanksOnTwoCoresPredictEverySchedulesIterationWithinTenPercent) {
  const Result plan = run("plan --json " + path("plan.json") +
                          " -- --num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 8"
                          " --seq-length 256 --max-position-embeddings 256 --micro-batch-size 1"
                          " --global-batch-size 8 --vocab-size 128 --fp16 --pipeline-model-parallel-size 4"
                          " --world-size 4");
  ASSERT_EQ(plan.status, 0) << plan.err;
  const std::vector<std::string> first = measure_grid(dir_.string());
  if (first.empty()) return;
  std::cout << "first measurement outside the band, measuring again:\n" << joined(first);
  const std::vector<std::string> second = measure_grid(dir_.string());
  EXPECT_TRUE(second.empty()) << "twice outside the band:\n" << joined(second);
}

// Post-validation, replayed as predicted: with untied embeddings nothing holds ZB-H2's first rank to its last
// between iterations, so its steady state is well below its cold iteration (about 12 % here). The replay runs
// its iterations back to back and times each as the steady state is defined; it must land near the steady state
// and below the cold iteration, which a replay with a barrier before each iteration measures.
std::vector<std::string> measure_back_to_back(const std::string& dir) {
  const std::string plan = dir + "/untied.json", table = dir + "/untied_table.json", out = dir + "/untied_replay.json",
                    predicted = dir + "/untied_prediction.json";
  const std::string compute = " --fwd-ms-per-layer 2 --bwd-ms-per-layer 4";
  const Result bench = run("bench --plan " + plan + " --backend mpi --quiet --json " + table, kMpirun4);
  if (bench.status != 0) return {"bench --plan: exit " + std::to_string(bench.status) + "\n" + bench.err};
  const Result p =
      run("predict --plan " + plan + " --table " + table + " --schedule zb-h2 --json " + predicted + compute);
  if (p.status != 0) return {"predict: exit " + std::to_string(p.status) + "\n" + p.err};
  const Result replay = run("replay --plan " + plan + " --table " + table +
                                " --backend mpi --schedule zb-h2 --iterations 3 --quiet --json " + out + compute,
                            kMpirun4);
  if (replay.status != 0) return {"replay exit " + std::to_string(replay.status) + "\n" + replay.err};
  const auto prediction = nlohmann::json::parse(slurp(predicted)), doc = nlohmann::json::parse(slurp(out));
  const auto& zb = prediction.at("schedules").at(0);
  const double cold = zb.at("iteration_ms").get<double>(), steady = zb.at("steady_ms").get<double>();
  const auto& replayed = doc.at("schedules").at(0);
  const double measured = replayed.at("measured_iteration_ms").get<double>();
  std::vector<std::string> problems;
  if (zb.at("step_rule") != "post-validation" || replayed.at("step_rule") != "post-validation")
    problems.push_back("zb-h2 is not run with post-validation");
  if (!(steady < 0.95 * cold))
    problems.push_back("steady " + std::to_string(steady) + " ms, cold " + std::to_string(cold));
  if (replayed.at("predicted_iteration_ms").get<double>() != steady)
    problems.push_back("the replay holds another time");
  if (!(std::fabs(measured - steady) / measured <= 0.10) || !(measured < 0.97 * cold)) {
    problems.push_back("replayed " + std::to_string(measured) + " ms, steady state " + std::to_string(steady) +
                       " ms, cold " + std::to_string(cold) + " ms\n" + replay.out);
  }
  return problems;
}

TEST_F(PredictionGrid, PostValidationIsReplayedBackToBackAsItsSteadyState) {
  const Result plan = run("plan --json " + path("untied.json") +
                          " -- --num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 8"
                          " --seq-length 256 --max-position-embeddings 256 --micro-batch-size 1"
                          " --global-batch-size 8 --vocab-size 128 --fp16 --pipeline-model-parallel-size 4"
                          " --world-size 4 --untie-embeddings-and-output-weights");
  ASSERT_EQ(plan.status, 0) << plan.err;
  const std::vector<std::string> first = measure_back_to_back(dir_.string());
  if (first.empty()) return;
  std::cout << "first measurement outside the band, measuring again:\n" << joined(first);
  const std::vector<std::string> second = measure_back_to_back(dir_.string());
  EXPECT_TRUE(second.empty()) << "twice outside the band:\n" << joined(second);
}

}  // namespace
