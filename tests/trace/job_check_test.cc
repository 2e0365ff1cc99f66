// SPDX-License-Identifier: Apache-2.0
// --compare and the model check on jobs made by tests/trace/job_fixture.h.
#include "trace/job_check.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.h"
#include "trace/job_fixture.h"
#include "trace/job_reader.h"

namespace pipebench {
namespace {

using testing::JobFixture;

class JobCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("jobcheck");
    std::filesystem::create_directories(dir_ + "/a");
    std::filesystem::create_directories(dir_ + "/b");
    JobFixture a;
    a.write(dir_ + "/a");
    JobFixture b;  // another run: rank 1 is the slow one, 4 iterations
    b.slow_rank = 1;
    b.iterations = 4;
    b.write(dir_ + "/b");
    here_ = read_job({dir_ + "/a"}, JobReadOptions{});
    other_ = read_job({dir_ + "/b"}, JobReadOptions{});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  JobProfile here_, other_;
};

TEST_F(JobCheckTest, CompareGivesBothRunsSharesPerRank) {
  const JobComparison c = compare_jobs(here_, other_);
  ASSERT_EQ(c.ranks.size(), 4u);
  EXPECT_TRUE(c.only_here.empty());
  for (std::size_t r = 0; r < 4; ++r) {
    const RankBreakdown& h = here_.ranks[r];
    const RankBreakdown& o = other_.ranks[r];
    EXPECT_DOUBLE_EQ(c.ranks[r].here.comm, static_cast<double>(h.comm_ns) / static_cast<double>(h.span_ns));
    EXPECT_DOUBLE_EQ(c.ranks[r].other.comm, static_cast<double>(o.comm_ns) / static_cast<double>(o.span_ns));
    EXPECT_DOUBLE_EQ(c.ranks[r].other.iteration_ms, static_cast<double>(o.span_ns) / 1e6 / 4.0);
  }
  // Rank 1 computes 6000 us per iteration in the other run, 3200 here: its communication share is
  // higher here, rank 2's (slow here) lower.
  EXPECT_GT(c.ranks[1].here.comm, c.ranks[1].other.comm);
  EXPECT_LT(c.ranks[2].here.comm, c.ranks[2].other.comm);
  // A rank only in one run is listed.
  JobProfile three = here_;
  three.ranks.pop_back();
  const JobComparison d = compare_jobs(three, other_);
  EXPECT_EQ(d.only_other, std::vector<int>{3});
}

Prediction prediction_from(const JobProfile& job, double share_error_rank3) {
  Prediction p;
  SchedulePrediction s;
  s.id = {"1f1b", 1};
  s.iteration_ms = job.ranks[0].iteration_ms() * 1.05;  // within 10 %
  for (const auto& r : job.ranks) {
    PredictedRank pr;
    pr.rank = r.rank;
    pr.nccl_share = r.share(r.comm_ns) + (r.rank == 3 ? share_error_rank3 : 0.02);
    s.ranks.push_back(pr);
  }
  p.schedules.push_back(s);
  return p;
}

TEST_F(JobCheckTest, PredictionWithinAndBeyondTheTolerance) {
  const Prediction good = prediction_from(here_, 0.02);
  const ModelCheck ok = check_against_model(here_, &good, "p.json", nullptr, "", "", kDefaultModelTolerance);
  EXPECT_EQ(ok.schedule, "1f1b");
  EXPECT_EQ(ok.mismatches, 0);
  ASSERT_EQ(ok.ranks.size(), 4u);
  EXPECT_DOUBLE_EQ(ok.ranks[2].predicted_comm_share.value(), here_.ranks[2].share(here_.ranks[2].comm_ns) + 0.02);
  EXPECT_FALSE(ok.ranks[2].replayed_comm_share);

  const Prediction bad = prediction_from(here_, 0.25);
  const ModelCheck off = check_against_model(here_, &bad, "p.json", nullptr, "", "1f1b", kDefaultModelTolerance);
  EXPECT_EQ(off.mismatches, 1);
  EXPECT_EQ(off.ranks[3].mismatches, std::vector<std::string>{"communication share vs prediction"});
  // A tighter tolerance catches the 5 % iteration time and the 0.02 shares too.
  const ModelCheck tight = check_against_model(here_, &good, "p.json", nullptr, "", "", 0.01);
  EXPECT_EQ(tight.mismatches, 4);
}

TEST_F(JobCheckTest, ReplayAndScheduleChoice) {
  ReplayResult replay;
  ScheduleReplay s;
  s.id = {"interleaved", 2};
  s.median_ms = here_.ranks[0].iteration_ms() * 2.0;  // twice the measured time: beyond 10 %
  for (const auto& r : here_.ranks) {
    ReplayRankStats st;
    st.rank = r.rank;
    st.comm_share = r.share(r.comm_ns);
    s.per_rank.push_back(st);
  }
  replay.schedules.push_back(s);
  const ModelCheck m = check_against_model(here_, nullptr, "", &replay, "r.json", "", kDefaultModelTolerance);
  EXPECT_EQ(m.schedule, "interleaved:v2");
  EXPECT_EQ(m.mismatches, 4);
  EXPECT_EQ(m.ranks[0].mismatches, std::vector<std::string>{"iteration time vs replay"});
  EXPECT_THROW((void)check_against_model(here_, nullptr, "", &replay, "r.json", "1f1b", 0.1), UsageError);
  // Two schedules and none named: the user must choose.
  const Prediction p = prediction_from(here_, 0.0);
  EXPECT_THROW((void)check_against_model(here_, &p, "p.json", &replay, "r.json", "", 0.1), UsageError);
}

}  // namespace
}  // namespace pipebench
