// SPDX-License-Identifier: Apache-2.0
// End to end: hostile input files and numbers get one line and exit status 2 from the built binary,
// never a crash, a hang, "wrong data" (3) or a silent pass. Files are made in a temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::slurp;

const char* kPlanArgs =
    "--num-layers 8 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
    "--micro-batch-size 1 "
    "--global-batch-size 8 --vocab-size 1000 --pipeline-model-parallel-size 2 --world-size 2";

class RobustInput : public pipebench::e2e::TempFolder {
 protected:
  // A plan made by the binary, edited, written next to it.
  std::string edited_plan(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    const std::string good = path("plan.json");
    if (!std::filesystem::exists(good)) {
      const Result r = run("plan --json " + good + " -- " + kPlanArgs);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    nlohmann::json j = nlohmann::json::parse(slurp(good));
    edit(j);
    return write(name, j.dump());
  }
};

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_usage_error(const std::string& args, const std::string& needle) {
  const Result r = run(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_LT(r.err.size(), 400u) << r.err;
}

// The first collective message of schedule 0 (after the P2P ones).
nlohmann::json& first_collective(nlohmann::json& j) {
  for (auto& m : j["schedules"][0]["messages"]) {
    if (m["op"] != "send" && m["op"] != "recv") return m;
  }
  throw std::runtime_error("no collective");
}

TEST_F(RobustInput, BadPlanGroupsAreBadInputNotACrashOrWrongData) {
  const std::string empty =
      edited_plan("empty.json", [](nlohmann::json& j) { first_collective(j)["group"] = nlohmann::json::array(); });
  expect_usage_error("bench --backend mpi --plan " + empty, "group\" is empty");
  const std::string twice = edited_plan("twice.json", [](nlohmann::json& j) {
    auto& m = first_collective(j);
    m["group"] = {m["rank"], m["rank"]};
  });
  expect_usage_error("bench --backend mpi --plan " + twice, "group\" repeats a rank");
  const std::string pp0 = edited_plan("pp0.json", [](nlohmann::json& j) { j["layout"]["pp"] = 0; });
  expect_usage_error("predict --plan " + pp0 + " --link-gbps 10 --fwd-ms-per-layer 1", "\"layout\" has a size below 1");
  const std::string many = edited_plan("many.json", [](nlohmann::json& j) { j["layout"]["microbatches"] = 2000000; });
  expect_usage_error("predict --plan " + many + " --link-gbps 10 --fwd-ms-per-layer 1", "above the limit of 16384");
  expect_usage_error("predict --plan " + dir_.string() + " --link-gbps 10 --fwd-ms-per-layer 1", "a directory");
}

TEST_F(RobustInput, AbsurdNumbersAreBadInput) {
  const std::string plan = edited_plan("same.json", [](nlohmann::json&) {});
  expect_usage_error("predict --plan " + plan + " --link-gbps 1e-300 --fwd-ms-per-layer 1", "--link-gbps");
  expect_usage_error("predict --plan " + plan + " --link-gbps 10 --tflops nan", "--tflops");
  expect_usage_error("predict --plan " + plan + " --link-gbps 10 --link-latency-us nan --fwd-ms-per-layer 1",
                     "--link-latency-us");
  for (const char* share : {"1.5", "-0.1", "nan", "half"}) {
    expect_usage_error("predict --plan " + plan + " --link-gbps 10 --fwd-ms-per-layer 1 --w-share " + share,
                       "--w-share");
    expect_usage_error("replay --plan " + plan + " --fwd-ms-per-layer 1 --w-share " + share, "--w-share");
  }
  const std::string model =
      "plan -- --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 --vocab-size 1000 ";
  expect_usage_error(model + "--global-batch-size 8 --num-layers 2147483647", "above the limit of 4096");
  expect_usage_error(
      "plan -- --num-layers 8 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 "
      "--global-batch-size 2000000000 --vocab-size 1000",
      "above the limit of 16384");
  expect_usage_error("plan -- --hidden-size -256 --num-layers 8", "--hidden-size");
}

TEST_F(RobustInput, NothingMeasuredIsBadInputNotAPass) {
  expect_usage_error("bench --backend mpi --op '' -b 8 -e 8", "--op");
  expect_usage_error("bench --backend mpi --sizes ''", "--sizes");
  // Google Benchmark prints its own line ("Failed to match any benchmarks") before pipebench's.
  const Result none = run("bench --backend mpi -b 8 -e 8 --benchmark_filter=no-such-point");
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_NE(none.err.find("pipebench: --benchmark_filter=no-such-point: matches none of the 2 points\n"),
            std::string::npos)
      << none.err;
  const std::string plan = edited_plan("same.json", [](nlohmann::json&) {});
  const Result none_of_plan = run("bench --backend mpi --plan " + plan + " --benchmark_filter=no-such-point");
  EXPECT_EQ(none_of_plan.status, 2) << none_of_plan.err;
  EXPECT_NE(none_of_plan.err.find("pipebench: --benchmark_filter=no-such-point: matches none of the"),
            std::string::npos)
      << none_of_plan.err;
  // The Megatron arguments of run are checked before the sweep: nothing is measured, nothing printed.
  const Result r = run("run --backend mpi --out " + path("run") + " -- --num-layers 0");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--num-layers"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("every value checked correct"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("run")));
}

}  // namespace
