// SPDX-License-Identifier: Apache-2.0
// `pipebench trace DIR|FILE...` end to end: the report, --json (ranks, compare, model_check),
// --chrome-trace, and the exit statuses (0; 2 for bad input; 3 beyond --tolerance of the model).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_pipebench.h"
#include "io/prediction_io.h"
#include "trace/job_fixture.h"

namespace pipebench {
namespace {

using e2e::run;

class TraceJobE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("tracejob");
    std::filesystem::create_directories(dir_ + "/a");
    std::filesystem::create_directories(dir_ + "/b");
    testing::JobFixture a;
    paths_ = a.write(dir_ + "/a");
    testing::JobFixture b;
    b.slow_rank = 0;
    b.write(dir_ + "/b", "rank", true);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A prediction for schedule 1f1b whose shares are `share` on every rank and iteration `ms`.
  std::string prediction(double share, double ms) {
    Prediction p;
    SchedulePrediction s;
    s.id = {"1f1b", 1};
    s.iteration_ms = ms;
    for (int r = 0; r < 4; ++r) {
      PredictedRank pr;
      pr.rank = r;
      pr.nccl_share = share;
      s.ranks.push_back(pr);
    }
    p.schedules.push_back(s);
    p.best = "1f1b";
    const std::string path = dir_ + "/pred.json";
    std::ofstream(path) << prediction_to_json(p).dump();
    return path;
  }
  std::string dir_;
  std::vector<std::string> paths_;
};

TEST_F(TraceJobE2e, ReportJsonCompareAndChromeTrace) {
  const auto r = run("trace " + dir_ + "/a --compare " + dir_ + "/b --json " + dir_ + "/t.json --chrome-trace " + dir_ +
                     "/m.json");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 ranks"), std::string::npos);
  EXPECT_NE(r.out.find("slowest rank: 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clocks aligned by the wall clock"), std::string::npos);
  EXPECT_NE(r.out.find("compared with"), std::string::npos);
  std::ifstream in(dir_ + "/t.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "pipebench.trace/1");
  ASSERT_EQ(j["ranks"].size(), 4u);
  EXPECT_EQ(j["devices"].size(), 4u);
  EXPECT_EQ(j["ranks"][2]["slowest"], true);
  EXPECT_EQ(j["alignment"]["method"], "epoch");
  ASSERT_EQ(j["compare"]["ranks"].size(), 4u);
  const auto& d0 = j["compare"]["ranks"][0];
  EXPECT_DOUBLE_EQ(d0["delta"]["comm_share"].get<double>(),
                   d0["this"]["comm_share"].get<double>() - d0["other"]["comm_share"].get<double>());
  std::ifstream chrome(dir_ + "/m.json");
  EXPECT_TRUE(nlohmann::json::accept(chrome));
}

TEST_F(TraceJobE2e, PredictionMismatchExitsThree) {
  // Measured communication shares lie between 0.25 and 0.58 (the fixture): 0.4 +- 0.5 passes, 0.9 does not.
  const auto ok = run("trace " + dir_ + "/a --prediction " + prediction(0.4, 9.4) + " --tolerance 0.5");
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
  const auto bad = run("trace " + dir_ + "/a --prediction " + prediction(0.9, 9.4) + " --json " + dir_ + "/t.json");
  EXPECT_EQ(bad.status, 3) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("MISMATCH"), std::string::npos);
  EXPECT_NE(bad.err.find("exit status 3"), std::string::npos);
  std::ifstream in(dir_ + "/t.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["model_check"]["mismatches"], 4);
}

// A world of 2^24 with 4 ranks traced: the missing ones are one range, not 16 million numbers on a line.
TEST_F(TraceJobE2e, MissingRanksOfAHugeWorldAreARange) {
  for (const std::string& path : paths_) {
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["distributedInfo"]["world_size"] = 1 << 24;
    std::ofstream(path) << doc.dump();
  }
  const auto r = run("trace " + dir_ + "/a");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("# ranks missing: 4-16777215 (world size 16777216)\n"), std::string::npos) << r.out;
  EXPECT_LT(r.out.size(), 20000u);
}

TEST_F(TraceJobE2e, BadInputIsOneLineAndExitTwo) {
  for (const std::string& args :
       {"trace " + paths_[0] + " " + paths_[0], "trace " + dir_ + "/a --plan " + dir_ + "/none.json",
        "trace " + paths_[0] + " --replay " + dir_ + "/r.json", "trace " + dir_ + "/a --tolerance 0.1",
        "trace " + dir_ + "/a --align collective --first-rank 1 --schedule 1f1b", "trace " + dir_ + "/nothing"}) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
}

}  // namespace
}  // namespace pipebench
