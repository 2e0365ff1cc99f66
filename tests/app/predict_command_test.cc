// SPDX-License-Identifier: Apache-2.0
// `pipebench predict --profile` end to end on PyTorch pipelining's own profiles (tests/fixtures/trace/pipelining):
// the terms it measured and their sources, the profiled schedule re-simulated, the prediction file that records
// both, and a profile that does not fit, or flags that do not go with it: one line, exit 2, nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_pipebench.h"
#include "io/prediction_io.h"
#include "trace/job_fixture.h"

namespace pipebench {
namespace {

using e2e::Result;
using e2e::run;

const std::string kFixtures = std::string(TEST_DATA_DIR) + "/trace/pipelining";

class PredictProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("predict_profile");
    ASSERT_FALSE(dir_.empty());
    const Result r = run("plan --json " + plan() +
                         " -- --num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 4 "
                         "--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 "
                         "--pipeline-model-parallel-size 4 --world-size 4 --vocab-size 128 "
                         "--untie-embeddings-and-output-weights --num-layers-per-virtual-pipeline-stage 1");
    ASSERT_EQ(r.status, 0) << r.err;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string plan() const { return dir_ + "/plan.json"; }
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }

  static void expect_usage_error(const Result& r, const std::string& start) {
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(r.err.rfind("pipebench: " + start, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }

  std::string dir_;
};

TEST_F(PredictProfile, PrintsTheMeasuredTermsTheResidualAndWritesThemToItsFile) {
  const Result r = run("predict --plan " + plan() + " --profile " + kFixtures + "/1f1b --json " + path("p.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# communication: measured from the profile (4 files, 1f1b, 1 iteration)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# from the profile: 1f1b ran, 1 iteration profiled"), std::string::npos);
  EXPECT_NE(r.out.find("rank1.json.gz: 16 passes over 1 iteration"), std::string::npos);
  EXPECT_NE(r.out.find("#   P2P transfer: "), std::string::npos);
  EXPECT_NE(r.out.find("# 1f1b re-simulated from these terms: iteration "), std::string::npos);
  EXPECT_NE(r.out.find("the profiled 1f1b re-simulated within"), std::string::npos);  // the verdict's band
  std::ifstream in(path("p.json"));
  const Prediction p = prediction_from_json(nlohmann::json::parse(in), "p.json");
  ASSERT_TRUE(p.profile_check);
  EXPECT_EQ(p.profile_check->schedule.key(), "1f1b");
  EXPECT_EQ(p.profile_check->ranks.size(), 4u);
  EXPECT_NEAR(p.profile_check->error(), 0, 0.02);
  // Per rank: forward and backward per layer, host time per pass, optimizer; then the transfer.
  EXPECT_EQ(p.measured_terms.size(), 4u * 4u + 1u);
  EXPECT_EQ(p.measured_terms.back().term, "P2P transfer");
  EXPECT_NE(p.band_source.find("the profiled 1f1b re-simulated within"), std::string::npos);
  // The report shows every term with its source, and the re-simulation.
  const Result rep = run("report " + path("p.json") + " --out " + path("rep"));
  EXPECT_EQ(rep.status, 0) << rep.err;
  const std::string md = e2e::slurp(path("rep/report.md"));
  EXPECT_NE(md.find("Terms measured from the job's profile"), std::string::npos) << md;
  EXPECT_NE(md.find("rank3.json.gz: 16 passes over 1 iteration"), std::string::npos);
  EXPECT_NE(md.find("1f1b re-simulated from these terms: "), std::string::npos);
}

TEST_F(PredictProfile, AProfileThatDoesNotFitIsOneLineAndExit2) {
  // Three of the four ranks.
  std::filesystem::create_directory(path("three"));
  for (int r = 0; r < 3; ++r)
    std::filesystem::copy_file(kFixtures + "/1f1b/rank" + std::to_string(r) + ".json.gz",
                               path("three/rank" + std::to_string(r) + ".json.gz"));
  expect_usage_error(run("predict --plan " + plan() + " --profile " + path("three") + " --json " + path("p.json")),
                     "--profile: no profile of rank 3 of the plan's first pipeline group (3 files given)");
  EXPECT_FALSE(std::filesystem::exists(path("p.json")));
  // Another schedule than the one named.
  expect_usage_error(
      run("predict --plan " + plan() + " --profile " + kFixtures + "/interleaved --profile-schedule 1f1b"),
      kFixtures + "/interleaved/rank0.json.gz: pass F of stage 4, microbatch 0 is not the schedule 1f1b's");
  // A folder without profiles, a file that is not one.
  std::filesystem::create_directory(path("empty"));
  expect_usage_error(run("predict --plan " + plan() + " --profile " + path("empty")), "--profile " + path("empty"));
  ::mkfifo(path("fifo.json").c_str(), 0600);
  expect_usage_error(run("predict --plan " + plan() + " --profile " + path("fifo.json")),
                     "--profile " + path("fifo.json") + ": a FIFO");
  std::ofstream(path("x.json")) << "{\"traceEvents\": []}";
  expect_usage_error(run("predict --plan " + plan() + " --profile " + path("x.json")),
                     path("x.json") + ": no kernels and no CPU operators");
}

TEST_F(PredictProfile, FlagsThatTheProfileReplacesAreRefused) {
  const std::string base = "predict --plan " + plan() + " --profile " + kFixtures + "/1f1b ";
  expect_usage_error(run(base + "--fwd-ms-per-layer 1"), "--fwd-ms-per-layer: the profile gives it");
  expect_usage_error(run(base + "--optimizer-ms 2"), "--optimizer-ms: the profile gives it");
  expect_usage_error(run(base + "--link-gbps 10"), "communication costs: give exactly one of");
  expect_usage_error(run("predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --profile-schedule 1f1b"),
                     "--profile-schedule: names the schedule of --profile's profiles; give --profile");
  expect_usage_error(run(base + "--profile-schedule interleaved"),
                     kFixtures +
                         "/1f1b/rank0.json.gz: 12 stretches of compute between P2P calls where the schedule "
                         "interleaved v=2 runs 32 passes in 32 runs in profiled iteration 1 on pipeline rank 0");
  expect_usage_error(run(base + "--profile-schedule zbv:v3"), "--profile-schedule");
  // The profile is an input: --json over one of its files is refused before anything is read.
  std::filesystem::copy(kFixtures + "/1f1b", path("prof"));
  expect_usage_error(
      run("predict --plan " + plan() + " --profile " + path("prof") + " --json " + path("prof/rank0.json.gz")),
      "--json " + path("prof/rank0.json.gz"));
}

// An nccl-tests log that starts far above the latency regime (nccl-tests' default -b is 32M): its smallest
// size's time becomes every smaller message's floor, and the cost line says so; the full log does not.
TEST_F(PredictProfile, ANcclTestsTableWithoutSmallSizesSaysItsLatencyIsABigMessagesTime) {
  const std::string log = std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log";
  std::ifstream in(log);
  std::ofstream out(path("big_only.log"));
  for (std::string line; std::getline(in, line);) {
    const bool row = line.find(" float ") != std::string::npos;
    if (!row || line.find("536870912") != std::string::npos) out << line << "\n";
  }
  out.close();
  const Result big = run("predict --plan " + plan() + " --table " + path("big_only.log") + " --tflops 100");
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_NE(big.out.find("note: its smallest all_reduce size is 512M, so its 2613.8 us there is taken as every "
                         "smaller message's latency"),
            std::string::npos)
      << big.out;
  const Result full = run("predict --plan " + plan() + " --table " + log + " --tflops 100");
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_EQ(full.out.find("is taken as every smaller message's latency"), std::string::npos) << full.out;
}

// A table bench --plan wrote with the pass costs it measured on rank 0's GPU (tests/fixtures/results: the
// plan below on 2 host ranks, its pass costs fixed by hand: a 25 us gap, GEMMs 1000 us alone and 1250 us
// beside NCCL's kernels, so --comm-sm-slowdown 0.25). predict takes the recorded terms as the flags would
// give them; a flag given wins.
class PredictPassCosts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("predict_pass_costs");
    ASSERT_FALSE(dir_.empty());
    const Result r = run("plan --json " + path("plan.json") +
                         " -- --num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 128 "
                         "--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 "
                         "--pipeline-model-parallel-size 2 --world-size 2 --vocab-size 128 --bf16");
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(kTable);
    table_ = nlohmann::json::parse(in);
    nlohmann::json bare = table_;
    bare.erase("pass_costs");
    std::ofstream(path("bare.json")) << bare.dump(2);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // predict on `table` with `flags`, its prediction file read back.
  nlohmann::json predict(const std::string& table, const std::string& flags, Result* r = nullptr) {
    const std::string json = path("p" + std::to_string(++runs_) + ".json");
    const Result out =
        run("predict --plan " + path("plan.json") + " --table " + table + " --tflops 100 --json " + json + " " + flags);
    EXPECT_EQ(out.status, 0) << out.err;
    if (r) *r = out;
    std::ifstream in(json);
    return nlohmann::json::parse(in);
  }
  static std::vector<double> iterations(const nlohmann::json& p) {
    std::vector<double> ms;
    for (const auto& s : p.at("schedules")) {
      ms.push_back(s.at("iteration_ms").get<double>());
      ms.push_back(s.at("steady_ms").get<double>());
    }
    return ms;
  }

  const std::string kTable = std::string(TEST_DATA_DIR) + "/results/pp2_pass_costs.json";
  std::string dir_;
  nlohmann::json table_;
  int runs_ = 0;
};

TEST_F(PredictPassCosts, RecordedTermsPriceThePassesAsTheirFlagsWould) {
  Result recorded_run;
  const nlohmann::json recorded = predict(kTable, "", &recorded_run);
  const nlohmann::json by_hand = predict(path("bare.json"), "--comm-sm-slowdown 0.25 --pass-gap-us 25");
  const nlohmann::json without = predict(path("bare.json"), "");
  EXPECT_EQ(iterations(recorded), iterations(by_hand));
  EXPECT_NE(iterations(recorded), iterations(without));
  const std::string origin = "measured by bench --plan on NVIDIA H100 80GB HBM3, median of 50)";
  EXPECT_NE(recorded_run.out.find("# NCCL kernels slow overlapped compute by a factor 1.25 (--comm-sm-slowdown)"),
            std::string::npos)
      << recorded_run.out;
  EXPECT_NE(recorded_run.out.find(" pass-gap (25.0 us per pass, " + origin), std::string::npos) << recorded_run.out;
  EXPECT_NE(recorded_run.out.find(" comm-sm-slowdown (0.250, " + origin), std::string::npos) << recorded_run.out;
  const auto sources = recorded.at("cost_source").get<std::vector<std::string>>();
  EXPECT_NE(std::find(sources.begin(), sources.end(), "pass-gap (25.0 us per pass, " + origin), sources.end());
  EXPECT_NE(std::find(sources.begin(), sources.end(), "comm-sm-slowdown (0.250, " + origin), sources.end());
  const auto bare_sources = without.at("cost_source").get<std::vector<std::string>>();
  EXPECT_EQ(sources.size(), bare_sources.size() + 2);
}

TEST_F(PredictPassCosts, TheFlagsWinOverTheRecordedTerms) {
  const nlohmann::json zero = predict(kTable, "--comm-sm-slowdown 0 --pass-gap-us 0");
  EXPECT_EQ(iterations(zero), iterations(predict(path("bare.json"), "")));
  const nlohmann::json gap = predict(kTable, "--pass-gap-us 100");
  EXPECT_EQ(iterations(gap), iterations(predict(path("bare.json"), "--comm-sm-slowdown 0.25 --pass-gap-us 100")));
  const auto sources = gap.at("cost_source").get<std::vector<std::string>>();
  EXPECT_NE(std::find(sources.begin(), sources.end(), "pass-gap (100.0 us per pass, --pass-gap-us)"), sources.end());
}

TEST_F(PredictPassCosts, ABadGapOrRecordedTermIsOneLineAndExit2) {
  const std::string base = "predict --plan " + path("plan.json") + " --table " + kTable + " --tflops 100 ";
  for (const char* bad : {"-1", "nan", "inf", "2e6", "x"}) {
    const Result r = run(base + "--pass-gap-us " + bad);
    EXPECT_EQ(r.status, 2) << bad << r.out;
    EXPECT_EQ(r.err.rfind("pipebench: predict: --pass-gap-us: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const Result profiled =
      run("predict --plan " + path("plan.json") + " --profile " + kFixtures + "/1f1b --pass-gap-us 10");
  EXPECT_EQ(profiled.status, 2);
  EXPECT_EQ(profiled.err, "pipebench: --pass-gap-us: the profile gives it (--profile measures every term)\n");
  nlohmann::json bad = table_;
  bad["pass_costs"]["sync_gap_us"]["median_us"] = -3;
  std::ofstream(path("bad.json")) << bad.dump(2);
  const Result r = run("predict --plan " + path("plan.json") + " --table " + path("bad.json") + " --tflops 100");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "pipebench: --table " + path("bad.json") +
                       ": \"pass_costs.sync_gap_us.median_us\" is not a finite number >= 0\n");
}

}  // namespace
}  // namespace pipebench
