// SPDX-License-Identifier: Apache-2.0
// The job view on per-rank Kineto traces made by tests/trace/job_fixture.h: 4 ranks, skewed clocks,
// one slow rank. Every number is held against totals the fixture computes tick by tick.
#include "trace/job_reader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "trace/job_fixture.h"

namespace pipebench {
namespace {

using testing::expected_rank;
using testing::JobFixture;

class JobReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::make_temp_dir("job"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

void expect_matches_fixture(const JobProfile& job, const JobFixture& f) {
  const auto events = f.events();
  ASSERT_EQ(job.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankBreakdown& b = job.ranks[static_cast<std::size_t>(r)];
    const auto x = expected_rank(events, r);
    EXPECT_EQ(b.rank, r);
    EXPECT_EQ(b.device, r);
    EXPECT_EQ(b.span_ns, (x.last_us - x.first_us) * 1000);
    EXPECT_EQ(b.compute_ns, x.compute_us * 1000);
    EXPECT_EQ(b.comm_ns, x.comm_us * 1000);
    EXPECT_EQ(b.overlap_ns, x.overlap_us * 1000);
    EXPECT_EQ(b.memory_only_ns, x.memory_only_us * 1000);
    EXPECT_EQ(b.idle_ns, x.idle_us * 1000);
    EXPECT_EQ(b.compute_only_ns + b.comm_only_ns + b.overlap_ns + b.memory_only_ns + b.idle_ns, b.span_ns);
    EXPECT_EQ(b.memcpy_count, x.memcpy);
    EXPECT_EQ(b.memset_count, x.memset);
    EXPECT_EQ(b.memcpy_bytes, x.memcpy_bytes);
    EXPECT_EQ(b.iterations, 3);
    EXPECT_EQ(b.iterations_source, "ProfilerStep");
    EXPECT_DOUBLE_EQ(b.iteration_ms(), static_cast<double>(x.last_us - x.first_us) / 1000.0 / 3.0);
    EXPECT_DOUBLE_EQ(*b.overlap_ratio(), static_cast<double>(x.overlap_us) / static_cast<double>(x.comm_us));
  }
  EXPECT_EQ(job.slowest_rank, 2);       // compute 6000 us per iteration
  EXPECT_EQ(job.most_waiting_rank, 0);  // the least compute of the others
  EXPECT_TRUE(job.missing_ranks.empty());
}

TEST_F(JobReaderTest, EpochClocksBreakdownAndSkewAsUncertainty) {
  JobFixture f;
  f.write(dir_);
  const JobProfile job = read_job({dir_}, JobReadOptions{});
  expect_matches_fixture(job, f);
  EXPECT_EQ(job.alignment.method, "epoch");
  EXPECT_EQ(job.alignment.anchor, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  // The recorded clocks are off by the skews: the all_reduce ends spread by max - min skew.
  EXPECT_EQ(job.alignment.uncertainty_ns.value(), (3200 - (-700)) * 1000);
  EXPECT_EQ(job.alignment.checked_runs, 3);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(job.ranks[r].rank_source, "distributedInfo");
  // On the job clock rank r starts at its true start + its skew, less the earliest such.
  for (int r = 0; r < 4; ++r) EXPECT_EQ(job.ranks[r].start_ns, (f.skew_us[r] - (-700)) * 1000);
}

TEST_F(JobReaderTest, WithoutEpochTheFirstAllReduceAlignsExactly) {
  JobFixture f;
  f.base_time = false;
  f.write(dir_);
  const JobProfile job = read_job({dir_}, JobReadOptions{});
  expect_matches_fixture(job, f);
  EXPECT_EQ(job.alignment.method, "collective");
  EXPECT_EQ(job.alignment.uncertainty_ns.value(), 0);  // the later runs' ends agree exactly
  EXPECT_EQ(job.alignment.checked_runs, 2);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(job.ranks[r].start_ns, 0) << r;  // all start at true 1000 us
  // Job span = true first start to true last end over all ranks.
  const auto events = f.events();
  std::int64_t last = 0;
  for (int r = 0; r < 4; ++r) last = std::max(last, expected_rank(events, r).last_us);
  EXPECT_EQ(job.job_span_ns, (last - 1000) * 1000);
}

TEST_F(JobReaderTest, GzipTracesReadTheSame) {
  JobFixture f;
  f.write(dir_, "rank", true);
  const JobProfile job = read_job({dir_}, JobReadOptions{});
  expect_matches_fixture(job, f);
}

TEST_F(JobReaderTest, RanksFromFileNamesFirstRankAndGaps) {
  JobFixture f;
  f.distributed_info = false;
  const auto paths = f.write(dir_, "rep_");
  // Files given in reverse order: the names decide.
  const JobProfile job = read_job({paths[3], paths[1], paths[2], paths[0]}, JobReadOptions{});
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(job.ranks[r].rank, r);
    EXPECT_EQ(job.ranks[r].rank_source, "file name");
    EXPECT_EQ(job.ranks[r].profile.path, paths[r]);
  }
  // Names without ranks: --first-rank numbers them in the order given; a gap is reported.
  const std::string a = dir_ + "/a.json", b = dir_ + "/b.json";
  std::rename(paths[0].c_str(), a.c_str());
  std::rename(paths[2].c_str(), b.c_str());
  JobReadOptions o;
  o.first_rank = 4;
  const JobProfile two = read_job({a, b}, o);
  ASSERT_EQ(two.ranks.size(), 2u);
  EXPECT_EQ(two.ranks[0].rank, 4);
  EXPECT_EQ(two.ranks[1].rank, 5);
  EXPECT_EQ(two.ranks[0].rank_source, "--first-rank");
  EXPECT_EQ(two.missing_ranks, (std::vector<int>{0, 1, 2, 3}));
}

TEST_F(JobReaderTest, MissingRankOfTheWorldAndDuplicateRank) {
  JobFixture f;
  const auto paths = f.write(dir_);
  const JobProfile three = read_job({paths[0], paths[1], paths[2]}, JobReadOptions{});
  EXPECT_EQ(three.missing_ranks, std::vector<int>{3});  // distributedInfo says world size 4
  EXPECT_EQ(three.world_size.value(), 4);
  try {
    (void)read_job({paths[1], paths[1]}, JobReadOptions{});
    FAIL() << "no error for a rank given twice";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 twice"), std::string::npos) << e.what();
  }
}

TEST_F(JobReaderTest, BadInputsNameThePath) {
  EXPECT_THROW((void)read_job({dir_ + "/none"}, JobReadOptions{}), UsageError);
  EXPECT_THROW((void)read_job({dir_}, JobReadOptions{}), UsageError);  // a directory without profiles
  std::ofstream(dir_ + "/rank0.json") << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x"}]})";
  try {
    (void)read_job({dir_}, JobReadOptions{});
    FAIL() << "no error for a trace without kernels";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank0.json"), std::string::npos) << e.what();
  }
}

TEST(JobReaderNames, RankFromFileName) {
  EXPECT_EQ(rank_from_file_name("/x/rank0.json").value(), 0);
  EXPECT_EQ(rank_from_file_name("trace_rank_3.pt.trace.json").value(), 3);
  EXPECT_EQ(rank_from_file_name("rep_12.sqlite").value(), 12);
  EXPECT_EQ(rank_from_file_name("Rank-7.json.gz").value(), 7);
  EXPECT_EQ(rank_from_file_name("worker5.json").value(), 5);
  EXPECT_FALSE(rank_from_file_name("/rank9/profile.json"));  // the folder does not count
  EXPECT_FALSE(rank_from_file_name("frank3.json"));
  EXPECT_FALSE(rank_from_file_name("trace.json"));
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// A real job: tests/fixtures/trace/make_job_traces.py --ranks 4 --steps 3 on the GPU machine (torch
// 2.11.0+cu130, four processes on one H200, so gloo: its send/recv and all_reduce run on the host and
// leave no NCCL kernel; rank 2 does three times the matmuls). The expected numbers are what
// tests/fixtures/trace/check_job_traces.py computes from the raw events (its totals(), in ns).
struct RealRank {
  std::int64_t span_ns, compute_ns, memory_only_ns, idle_ns, memset_count;
};

TEST(JobReaderRealJob, FourGlooRanksOnOneH200MatchTotalsFromTheRawEvents) {
  const std::string dir = std::string(TEST_DATA_DIR) + "/trace/job_h200_gloo";
  const JobProfile job = read_job({dir}, JobReadOptions{});
  const RealRank want[4] = {{239627630, 1095620, 1157766, 237374244, 3},
                            {369520064, 1096549, 1485061, 366938454, 3},
                            {164458248, 3256813, 1327877, 159873558, 9},
                            {38599223, 1096261, 1207939, 36295023, 3}};
  ASSERT_EQ(job.ranks.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const RankBreakdown& b = job.ranks[static_cast<std::size_t>(r)];
    EXPECT_EQ(b.rank, r);
    EXPECT_EQ(b.rank_source, "distributedInfo");
    EXPECT_EQ(b.span_ns, want[r].span_ns);
    EXPECT_EQ(b.compute_ns, want[r].compute_ns);
    EXPECT_EQ(b.comm_ns, 0);  // gloo: no NCCL kernel
    EXPECT_EQ(b.overlap_ns, 0);
    EXPECT_EQ(b.memory_only_ns, want[r].memory_only_ns);
    EXPECT_EQ(b.idle_ns, want[r].idle_ns);
    EXPECT_EQ(b.memcpy_count, 15);
    EXPECT_EQ(b.memset_count, want[r].memset_count);
    EXPECT_EQ(b.memcpy_bytes, 44040192);
    EXPECT_EQ(b.iterations, 1);  // the profiles carry no ProfilerStep ranges
  }
  EXPECT_EQ(job.world_size.value(), 4);
  EXPECT_EQ(job.alignment.method, "epoch");  // every profile has baseTimeNanoseconds
  EXPECT_EQ(job.slowest_rank, 2);
  EXPECT_EQ(job.most_waiting_rank, 1);
  EXPECT_TRUE(job.missing_ranks.empty());
}

}  // namespace
}  // namespace pipebench
