// SPDX-License-Identifier: Apache-2.0
// The job view of a trace file read back: what `trace DIR --compare --prediction --json` wrote comes
// back field by field; a share out of [0, 1], a negative time or a missing field is one line naming it.
#include "io/trace_job_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "core/error.h"
#include "io/trace_io.h"
#include "trace/job_check.h"
#include "trace/job_fixture.h"
#include "trace/job_json.h"
#include "trace/job_reader.h"

namespace pipebench {
namespace {

class TraceJobIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("tracejobio");
    std::filesystem::create_directories(dir_ + "/a");
    std::filesystem::create_directories(dir_ + "/b");
    testing::JobFixture a;
    a.write(dir_ + "/a");
    testing::JobFixture b;
    b.slow_rank = 0;
    b.write(dir_ + "/b");
    here_ = read_job({dir_ + "/a"}, JobReadOptions{});
    other_ = read_job({dir_ + "/b"}, JobReadOptions{});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The document `trace --json` writes for the job, through the JSON text.
  nlohmann::json written(const JobComparison* compare, const ModelCheck* model) const {
    nlohmann::json doc = trace_to_json(trace_file(here_.ranks[0].profile, nullptr));
    doc["ranks"] = job_ranks_to_json(here_);
    doc["alignment"] = job_alignment_to_json(here_);
    if (compare) doc["compare"] = job_compare_to_json(*compare);
    if (model) doc["model_check"] = model_check_to_json(*model);
    return nlohmann::json::parse(doc.dump());
  }
  std::string dir_;
  JobProfile here_, other_;
};

TEST_F(TraceJobIoTest, EveryRankAlignmentComparisonAndModelRowComesBack) {
  const JobComparison compare = compare_jobs(here_, other_);
  ModelCheck model;
  model.schedule = "1f1b";
  model.prediction_path = "pred.json";
  model.tolerance = 0.1;
  model.mismatches = 1;
  model.ranks.push_back({0, 0.25, 10.5, 0.9, 9.0, std::nullopt, std::nullopt, {"comm share"}});
  const TraceJobView v = trace_from_json(written(&compare, &model), "t.json").job;
  ASSERT_EQ(v.ranks.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const RankBreakdown& b = here_.ranks[i];
    const TraceJobRank& r = v.ranks[i];
    EXPECT_EQ(r.rank, b.rank);
    EXPECT_EQ(r.device, b.device);
    EXPECT_EQ(r.file, b.profile.path);
    EXPECT_DOUBLE_EQ(r.span_us, static_cast<double>(b.span_ns) / 1000);
    EXPECT_DOUBLE_EQ(r.comm_share, b.share(b.comm_ns));
    EXPECT_DOUBLE_EQ(r.compute_share, b.share(b.compute_ns));
    EXPECT_DOUBLE_EQ(r.idle_share, b.share(b.idle_ns));
    EXPECT_DOUBLE_EQ(r.iteration_ms, b.iteration_ms());
    EXPECT_EQ(r.iterations, 3);
    EXPECT_EQ(r.memcpy_count, b.memcpy_count);
    EXPECT_DOUBLE_EQ(r.comm_overlap_ratio.value(), b.overlap_ratio().value());
    EXPECT_EQ(r.slowest, b.rank == 2);
  }
  ASSERT_TRUE(v.alignment);
  EXPECT_EQ(v.alignment->method, "epoch");
  EXPECT_EQ(v.alignment->slowest_rank, 2);
  EXPECT_DOUBLE_EQ(v.alignment->uncertainty_us.value(), static_cast<double>(*here_.alignment.uncertainty_ns) / 1000);
  ASSERT_TRUE(v.compare);
  ASSERT_EQ(v.compare->ranks.size(), compare.ranks.size());
  EXPECT_DOUBLE_EQ(v.compare->ranks[1].other.comm, compare.ranks[1].other.comm);
  EXPECT_DOUBLE_EQ(v.compare->ranks[1].here.iteration_ms, compare.ranks[1].here.iteration_ms);
  ASSERT_TRUE(v.model_check);
  EXPECT_EQ(v.model_check->prediction_path, "pred.json");
  EXPECT_TRUE(v.model_check->replay_path.empty());
  EXPECT_EQ(v.model_check->mismatches, 1);
  EXPECT_DOUBLE_EQ(v.model_check->ranks[0].predicted_comm_share.value(), 0.9);
  EXPECT_FALSE(v.model_check->ranks[0].replayed_comm_share);
  EXPECT_EQ(v.model_check->ranks[0].mismatches, std::vector<std::string>{"comm share"});
}

TEST_F(TraceJobIoTest, AOneProfileFileHasNoJobView) {
  const TraceJobView v = trace_from_json(trace_to_json(trace_file(here_.ranks[0].profile, nullptr)), "one.json").job;
  EXPECT_TRUE(v.ranks.empty());
  EXPECT_FALSE(v.alignment || v.compare || v.model_check);
}

TEST_F(TraceJobIoTest, BadValuesNameTheFileAndField) {
  const nlohmann::json good = written(nullptr, nullptr);
  auto error_of = [&](const std::function<void(nlohmann::json&)>& spoil) {
    nlohmann::json t = good;
    spoil(t);
    try {
      (void)trace_from_json(t, "t.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      error_of([](nlohmann::json& t) { t["ranks"][1]["comm_share"] = 1.5; }).find("t.json: \"ranks[1].comm_share\""),
      std::string::npos);
  EXPECT_NE(error_of([](nlohmann::json& t) { t["ranks"][0]["span_us"] = -1; }).find("ranks[0].span_us"),
            std::string::npos);
  EXPECT_NE(error_of([](nlohmann::json& t) { t["ranks"][2].erase("idle_share"); }).find("ranks[2].idle_share"),
            std::string::npos);
  EXPECT_NE(error_of([](nlohmann::json& t) { t["ranks"][0] = 3; }).find("ranks[0]"), std::string::npos);
  EXPECT_NE(error_of([](nlohmann::json& t) { t["alignment"]["method"] = 1; }).find("alignment.method"),
            std::string::npos);
}

}  // namespace
}  // namespace pipebench
