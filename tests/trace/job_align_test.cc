// SPDX-License-Identifier: Apache-2.0
// Clock alignment on hand-made clocks: which method is taken, the offsets, the measured uncertainty.
#include "trace/job_align.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

using Marks = std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>>;

TEST(JobAlign, CollectiveEndsCoincideAndLaterRunsMeasureTheSpread) {
  // Rank 1's clock reads 5000 ns more than rank 0's; its second all_reduce ends 40 ns late.
  const Marks m0 = {{"AllReduce", {{100, 1000}, {2000, 3000}}}, {"Other", {{10, 20}}}};
  const Marks m1 = {{"AllReduce", {{5500, 6000}, {7200, 8040}}}};
  const auto a = align_rank_clocks({{std::nullopt, &m0, 100}, {std::nullopt, &m1, 5500}});
  EXPECT_EQ(a.method, "collective");
  EXPECT_EQ(a.anchor, "AllReduce");  // "Other" is not on every rank
  // Offsets make the first ends equal (rank 1: -5000), then the job starts at 0 (rank 0's 100 ns -> 0).
  EXPECT_EQ(a.offset_ns, (std::vector<std::int64_t>{-100, -5100}));
  EXPECT_EQ(a.uncertainty_ns.value(), 40);
  EXPECT_EQ(a.checked_runs, 1);
}

TEST(JobAlign, EpochClocksAndTheirDisagreement) {
  const Marks m0 = {{"AllReduce", {{0, 1000}}}}, m1 = {{"AllReduce", {{0, 1000}}}};
  // Rank 1's profile started 300 ns later by the wall clock: its ends come 300 ns after rank 0's.
  const auto a = align_rank_clocks({{1'000'000, &m0, 0}, {1'000'300, &m1, 0}});
  EXPECT_EQ(a.method, "epoch");
  EXPECT_EQ(a.offset_ns, (std::vector<std::int64_t>{0, 300}));
  EXPECT_EQ(a.uncertainty_ns.value(), 300);
  EXPECT_TRUE(a.note.empty());  // 300 ns is less than the run lasted
  // Asked for: the collective, the epoch only checks.
  const auto c = align_rank_clocks({{1'000'000, &m0, 0}, {1'000'300, &m1, 0}}, "collective");
  EXPECT_EQ(c.method, "collective");
  EXPECT_EQ(c.offset_ns, (std::vector<std::int64_t>{0, 0}));
  // Clocks further apart than the collective lasted: said.
  const auto far = align_rank_clocks({{1'000'000, &m0, 0}, {1'005'000, &m1, 0}});
  EXPECT_NE(far.note.find("disagree"), std::string::npos) << far.note;
}

TEST(JobAlign, NothingInCommon) {
  const Marks m0 = {{"AllReduce", {{0, 1000}}}}, m1 = {{"AllGather", {{0, 1000}}}};
  const auto a = align_rank_clocks({{std::nullopt, &m0, 50}, {std::nullopt, &m1, 20}});
  EXPECT_EQ(a.method, "none");
  EXPECT_FALSE(a.uncertainty_ns);
  EXPECT_EQ(a.offset_ns, (std::vector<std::int64_t>{-20, -20}));
  EXPECT_THROW((void)align_rank_clocks({{std::nullopt, &m0, 0}, {std::nullopt, &m1, 0}}, "collective"), UsageError);
  EXPECT_THROW((void)align_rank_clocks({{1, &m0, 0}, {std::nullopt, &m1, 0}}, "epoch"), UsageError);
}

}  // namespace
}  // namespace pipebench
