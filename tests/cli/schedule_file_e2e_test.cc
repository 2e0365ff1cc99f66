// SPDX-License-Identifier: Apache-2.0
// --schedule-file through the binary: predict runs a hand-written 1F1B file beside the built-in 1F1B and
// predicts the same iteration; replay runs it on 4 MPI ranks with its prediction; a bad file is one line
// naming the file, the row and the cell, with exit status 2, before anything runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::slurp;

const char* kMpirun4 = "CUDA_VISIBLE_DEVICES= mpirun -np 4 --oversubscribe -x CUDA_VISIBLE_DEVICES";
const std::string kFixtures = TEST_DATA_DIR "/schedule/";

class ScheduleFileE2E : public pipebench::e2e::TempFolder {
 protected:
  void SetUp() override {
    TempFolder::SetUp();
    ASSERT_FALSE(HasFatalFailure());
    // p 4, m 8 (global batch 8, micro batch 1, DP 1): the fixtures' pipeline.
    const Result plan = run("plan --json " + path("plan.json") +
                            " -- --num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 8"
                            " --seq-length 256 --max-position-embeddings 256 --micro-batch-size 1"
                            " --global-batch-size 8 --vocab-size 128 --fp16 --pipeline-model-parallel-size 4"
                            " --world-size 4");
    ASSERT_EQ(plan.status, 0) << plan.err;
  }
};

TEST_F(ScheduleFileE2E, PredictRunsTheFileBesideTheSelectedScheduleAndMatchesTheBuiltIn) {
  const Result r = run("predict --plan " + path("plan.json") + " --link-gbps 2 --link-latency-us 20" +
                       " --fwd-ms-per-layer 1 --schedule 1f1b --schedule-file " + kFixtures + "1f1b_p4_m8.csv" +
                       " --json " + path("prediction.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("file:1f1b_p4_m8 (reference)"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(path("prediction.json")));
  const auto& s = doc.at("schedules");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].at("name"), "1f1b");
  EXPECT_EQ(s[1].at("name"), "file:1f1b_p4_m8");
  EXPECT_EQ(s[1].at("iteration_ms").get<double>(), s[0].at("iteration_ms").get<double>());
  EXPECT_EQ(s[1].at("ranks"), s[0].at("ranks"));
}

TEST_F(ScheduleFileE2E, BadFilesAreOneLineWithExitStatusTwo) {
  const std::string predict =
      "predict --plan " + path("plan.json") + " --zero-comm --fwd-ms-per-layer 1 --schedule-file ";
  const Result deadlock = run(predict + kFixtures + "deadlock_p4_m8.csv");
  EXPECT_EQ(deadlock.status, 2);
  EXPECT_EQ(deadlock.err.rfind("pipebench: --schedule-file " + kFixtures +
                                   "deadlock_p4_m8.csv: row 1, cell 5 '0B1': "
                                   "deadlock: rank 0 waits here for",
                               0),
            0u)
      << deadlock.err;
  EXPECT_EQ(deadlock.err.find('\n'), deadlock.err.size() - 1) << deadlock.err;
  EXPECT_TRUE(deadlock.out.empty()) << deadlock.out;  // found before anything ran
  const Result folder = run(predict + kFixtures);
  EXPECT_EQ(folder.status, 2);
  EXPECT_NE(folder.err.find("--schedule-file " + kFixtures), std::string::npos) << folder.err;
  // The fixtures are p 4: a 2-stage plan has other rows.
  const Result plan2 = run("plan --json " + path("plan2.json") +
                           " -- --num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 256"
                           " --max-position-embeddings 256 --micro-batch-size 1 --global-batch-size 8"
                           " --vocab-size 128 --fp16 --pipeline-model-parallel-size 2 --world-size 2");
  ASSERT_EQ(plan2.status, 0) << plan2.err;
  const Result rows = run("predict --plan " + path("plan2.json") +
                          " --zero-comm --fwd-ms-per-layer 1 --schedule-file " + kFixtures + "1f1b_p4_m8.csv");
  EXPECT_EQ(rows.status, 2);
  EXPECT_EQ(rows.err, "pipebench: --schedule-file " + kFixtures +
                          "1f1b_p4_m8.csv: 4 rows with actions, but the plan's pipeline has 2 ranks (one row per "
                          "rank)\n");
  // A blank line between rows 2 and 3 is no row: a file of 4 rows counts 4.
  const std::string fixture = slurp(kFixtures + "1f1b_p4_m8.csv");
  const std::size_t second = fixture.find('\n', fixture.find('\n') + 1) + 1;
  const std::string blank = write("blank.csv", fixture.substr(0, second) + "\n" + fixture.substr(second));
  const Result gap = run(predict + blank);
  EXPECT_EQ(gap.status, 2);
  EXPECT_EQ(gap.err, "pipebench: --schedule-file " + blank +
                         ": row 3 has no action (a blank line?); each row up to the last is one pipeline rank's "
                         "actions\n");
}

// Four MPI ranks on host memory: the file's schedule is replayed after 1F1B, with its prediction (from
// the messages timed on these ranks), which is 1F1B's.
TEST_F(ScheduleFileE2E, ReplayRunsTheFileOnFourMpiRanks) {
  const Result r = run("replay --plan " + path("plan.json") + " --backend mpi --schedule 1f1b --schedule-file " +
                           kFixtures + "zb_h1_p4_m8.csv --fwd-ms-per-layer 1 --bwd-ms-per-layer 2 --iterations 2" +
                           " --quiet --json " + path("replay.json"),
                       kMpirun4);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("file:zb_h1_p4_m8 (ref)"), std::string::npos) << r.out;
  const auto doc = nlohmann::json::parse(slurp(path("replay.json")));
  EXPECT_TRUE(doc.at("complete").get<bool>());
  const auto& s = doc.at("schedules");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].at("name"), "file:zb_h1_p4_m8");
  EXPECT_TRUE(s[1].at("reference").get<bool>());
  EXPECT_EQ(s[1].at("iterations_ms").size(), 2u);
  EXPECT_GT(s[1].at("measured_iteration_ms").get<double>(), 0);
  EXPECT_GT(s[1].at("predicted_iteration_ms").get<double>(), 0);
  // ZB-H1 fills 1F1B's bubble with W: predicted faster than 1F1B on the same messages.
  EXPECT_LT(s[1].at("predicted_iteration_ms").get<double>(), s[0].at("predicted_iteration_ms").get<double>());
}

}  // namespace
