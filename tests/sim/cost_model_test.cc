// SPDX-License-Identifier: Apache-2.0
// NcclTestsCost: an imported nccl-tests table standing for the machine.
#include "sim/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "collectives/registry.h"
#include "io/nccl_tests_log.h"
#include "sim/model_error.h"

namespace pipebench {
namespace {

// The registry's op of this name, as the cost models take it.
const Op& op_named(std::string_view name) { return OpRegistry::instance().find("op", name); }

ResultRecord row(const std::string& op, int n, std::uint64_t size, double time_us, double busbw,
                 bool in_place = false) {
  ResultRecord r;
  r.op = op;
  r.nranks = n;
  for (int i = 0; i < n; ++i) r.ranks.push_back(i);
  r.size_bytes = size;
  r.time_us = time_us;
  r.busbw_gbps = busbw;
  r.in_place = in_place;
  return r;
}

// An 8-rank all_reduce: 20 us at 8 B, busbw 100 GB/s at 1 MiB and 300 GB/s at 1 GiB.
std::vector<ResultRecord> all_reduce_table() {
  return {row("all_reduce", 8, 8, 20.0, 0.001), row("all_reduce", 8, 8, 5.0, 0.001, true),
          row("all_reduce", 8, 1 << 20, 40.0, 100.0), row("all_reduce", 8, 1 << 30, 6000.0, 300.0)};
}

double us(const CommCost& c) { return static_cast<double>(c.time) / 1000.0; }

TEST(NcclTestsCost, P2pIsLatencyPlusBytesOverBusbwInterpolatedOnLogSize) {
  const NcclTestsCost costs(all_reduce_table(), "ar.json");
  EXPECT_EQ(costs.reference_op(), "all_reduce");
  EXPECT_EQ(costs.reference_nranks(), 8);
  EXPECT_DOUBLE_EQ(costs.latency_us(), 20.0);  // out-of-place at the smallest size (in-place rows not used)
  // Half way between 2^20 and 2^30 on log size: 2^25 B -> 200 GB/s.
  EXPECT_NEAR(costs.busbw_gbps(std::pow(2.0, 25)), 200.0, 1e-9);
  EXPECT_DOUBLE_EQ(costs.busbw_gbps(1e12), 300.0);  // above the table: its last busbw
  const CommCost c = costs.cost(op_named("pair"), {3, 4}, 1 << 25);
  EXPECT_NEAR(us(c), 20.0 + std::pow(2.0, 25) / 200e9 * 1e6, 0.002);
  EXPECT_EQ(c.source, "derived from nccl-tests all_reduce");
}

TEST(NcclTestsCost, CollectivesOnOtherGroupsUseTheirBusFactor) {
  const NcclTestsCost costs(all_reduce_table(), "ar.json");
  const double b = 1 << 30;
  // all_reduce on 4 ranks: factor 2*3/4; all_gather on 2 ranks: 1/2 (nccl-tests doc/PERFORMANCE.md).
  EXPECT_NEAR(us(costs.cost(op_named("all_reduce"), {0, 2, 4, 6}, 1 << 30)), 20.0 + b * 1.5 / 300e9 * 1e6, 0.002);
  EXPECT_NEAR(us(costs.cost(op_named("all_gather"), {0, 1}, 1 << 30)), 20.0 + b * 0.5 / 300e9 * 1e6, 0.002);
  EXPECT_EQ(costs.cost(op_named("all_gather"), {0, 1}, 1 << 30).source, "derived from nccl-tests all_reduce");
  EXPECT_EQ(costs.cost(op_named("all_reduce"), {5}, 1 << 30).time, 0);  // a group of one moves nothing
  // The group the table measured is its own measurement.
  const CommCost same = costs.cost(op_named("all_reduce"), {0, 1, 2, 3, 4, 5, 6, 7}, 1 << 20);
  EXPECT_NEAR(us(same), 40.0, 0.002);
  EXPECT_NE(same.source.find("nccl-tests"), std::string::npos);
}

TEST(NcclTestsCost, ASendrecvTableIsUsedForP2pAsItIs) {
  auto records = all_reduce_table();
  records.push_back(row("sendrecv", 8, 1 << 20, 12.0, 87.0));
  records.push_back(row("sendrecv", 8, 1 << 22, 30.0, 140.0));
  const NcclTestsCost costs(records, "t.json");
  EXPECT_TRUE(costs.has_sendrecv());
  const CommCost c = costs.cost(op_named("pair"), {0, 1}, 1 << 21);
  // Log-log between (2^20, 12 us) and (2^22, 30 us): sqrt(12 * 30).
  EXPECT_NEAR(us(c), std::sqrt(12.0 * 30.0), 0.002);
  EXPECT_EQ(c.source, "nccl-tests sendrecv");
  // Collectives still come from the all_reduce table.
  EXPECT_EQ(costs.cost(op_named("all_gather"), {0, 1}, 1 << 20).source, "derived from nccl-tests all_reduce");
}

TEST(NcclTestsCost, WithoutABusBandwidthNothingCanBeDerived) {
  // One rank: nccl-tests prints busbw 0 (the factor is 0).
  const std::vector<ResultRecord> one = {row("all_reduce", 1, 1 << 20, 5.0, 0.0)};
  EXPECT_THROW(NcclTestsCost(one, "one.json"), ModelError);
  const std::vector<ResultRecord> hypercube = {row("hypercube", 8, 1 << 20, 5.0, 10.0)};
  EXPECT_THROW(NcclTestsCost(hypercube, "h.json"), ModelError);
  // Only a sendrecv table: it stands for the machine itself.
  const NcclTestsCost sr({row("sendrecv", 8, 1 << 20, 12.0, 87.0)}, "s.json");
  EXPECT_EQ(sr.reference_op(), "sendrecv");
}

TEST(NcclTestsCost, FromAnImportedFixture) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log");
  std::stringstream ss;
  ss << in.rdbuf();
  const NcclTestsFile f = parse_nccl_tests(ss.str(), {});
  const NcclTestsCost costs(f.logs.at(0).records, "all_reduce_perf-2.19.log");
  EXPECT_DOUBLE_EQ(costs.latency_us(), 22.28);
  EXPECT_DOUBLE_EQ(costs.busbw_gbps(536870912), 359.45);
  // 128 MiB between pipeline neighbours: 22.28 us + 2^27 B / 350.21 GB/s.
  EXPECT_NEAR(us(costs.cost(op_named("pair"), {0, 1}, 1 << 27)), 22.28 + 134217728 / 350.21e9 * 1e6, 0.002);
}

// bench --plan's batch records: found by their transfers (global ranks), one-way apart from both ways, and
// a pair measured only inside a batch priced from the smallest batch that carries it.
TEST(MeasuredCost, BatchRecordsAreFoundByTheirTransfers) {
  std::vector<ResultRecord> recs;
  auto pair = [&](std::vector<int> ranks, std::vector<RankPair> pairs, bool both, double us) {
    ResultRecord r;
    r.op = "pair";
    r.ranks = ranks;
    r.nranks = static_cast<int>(ranks.size());
    r.pairs = pairs;
    r.bidirectional = both;
    r.size_bytes = 1 << 20;
    r.time_us = us;
    recs.push_back(r);
  };
  pair({0, 1}, {{0, 1}}, true, 100);             // both ways on {0, 1}
  pair({0, 1}, {{0, 1}}, false, 60);             // 0 -> 1 alone
  pair({4, 5, 7}, {{0, 1}, {2, 1}}, false, 80);  // a split communicator: 4 -> 5 and 7 -> 5 at once
  const MeasuredCost m(recs, Placement(), "t.json");
  ASSERT_TRUE(m.has_batch_costs());
  EXPECT_EQ(m.batch_cost({{0, 1}}, 1 << 20)->time, 60000);
  EXPECT_EQ(m.batch_cost({{1, 0}, {0, 1}}, 1 << 20)->time, 100000);
  EXPECT_EQ(m.batch_cost({{1, 0}}, 1 << 20), std::nullopt);  // that direction alone was not measured
  const auto three = m.batch_cost({{7, 5}, {4, 5}}, 1 << 20);
  ASSERT_TRUE(three.has_value());
  EXPECT_EQ(three->time, 80000);
  EXPECT_EQ(three->source, "measured (scaled) (batch)");              // one size: scaled
  EXPECT_EQ(m.cost(op_named("pair"), {0, 1}, 1 << 20).time, 100000);  // the pair's own both-ways figure first
  const CommCost wrap = m.cost(op_named("pair"), {5, 7}, 1 << 20);
  EXPECT_EQ(wrap.time, 80000);
  EXPECT_EQ(wrap.source, "measured (scaled) (from a batch of 2)");
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

ResultRecord reduction(std::vector<int> ranks, std::uint64_t bytes, double time_us) {
  ResultRecord r;
  r.op = "all_reduce";
  r.ranks = std::move(ranks);
  r.nranks = static_cast<int>(r.ranks.size());
  r.size_bytes = bytes;
  r.time_us = time_us;
  return r;
}

// Groups {0} and {1} alone take 2000 and 2200 us at 32 MiB; both at once 4400 us: 2x the slower alone,
// a resource that carries one at full speed. The at-once record is no cost of a group {0, 1}.
TEST(MeasuredCostSharing, AtOnceRecordsGiveTheSlowdownAgainstTheSlowestGroupAlone) {
  const std::uint64_t s = 32u << 20;
  std::vector<ResultRecord> records = {reduction({0}, s, 2000), reduction({1}, s, 2200), reduction({0}, s / 4, 500),
                                       reduction({1}, s / 4, 550)};
  ResultRecord together = reduction({0, 1}, s, 4400);
  together.at_once = {{0}, {1}};
  records.push_back(together);
  ResultRecord small = reduction({0, 1}, s / 4, 600);
  small.at_once = {{0}, {1}};
  records.push_back(small);
  const MeasuredCost m(records, Placement{}, "t.json");
  const auto sh = m.sharing(op_named("all_reduce"), 1, static_cast<std::int64_t>(s) - 1000);
  ASSERT_TRUE(sh.has_value());
  EXPECT_EQ(sh->groups, 2);
  EXPECT_EQ(sh->bytes, static_cast<std::int64_t>(s));
  EXPECT_NEAR(sh->alone_us, 2200, 1e-6);
  EXPECT_NEAR(sh->slowdown, 2.0, 1e-9);
  EXPECT_NEAR(sh->capacity(), 1.0, 1e-9);
  const auto small_sh = m.sharing(op_named("all_reduce"), 1, static_cast<std::int64_t>(s / 4));  // the nearest size
  ASSERT_TRUE(small_sh.has_value());
  EXPECT_NEAR(small_sh->slowdown, 600.0 / 550.0, 1e-9);
  EXPECT_NE(small_sh->key, sh->key);
  EXPECT_FALSE(m.sharing(op_named("all_reduce"), 2, static_cast<std::int64_t>(s)).has_value());
  EXPECT_FALSE(m.sharing(op_named("all_gather"), 1, static_cast<std::int64_t>(s)).has_value());
  EXPECT_THROW((void)m.cost(op_named("all_reduce"), {0, 1}, static_cast<std::int64_t>(s)), UsageError);
}

// A table with both placements (a bench sweep, nccl-tests' columns): a collective is priced from the
// in-place curve, as Megatron issues it; one-rank in place moves nothing where out of place copies the
// buffer. A table with only out-of-place points (an older bench --plan) still prices it.
TEST(MeasuredCost, CollectivesArePricedInPlaceWhereMeasuredElseOutOfPlace) {
  const std::uint64_t s = 64u << 20;
  ResultRecord copy = reduction({0}, s, 6000);  // out of place: a 64 MiB copy
  ResultRecord nothing = reduction({0}, s, 1);  // in place on one rank
  nothing.in_place = true;
  const MeasuredCost both({copy, nothing}, Placement{}, "t.json");
  EXPECT_NEAR(us(both.cost(op_named("all_reduce"), {0}, static_cast<std::int64_t>(s))), 1.0, 1e-3);
  const MeasuredCost out_only({copy}, Placement{}, "t.json");
  EXPECT_NEAR(us(out_only.cost(op_named("all_reduce"), {0}, static_cast<std::int64_t>(s))), 6000.0, 1e-3);
  const MeasuredCost in_only({nothing}, Placement{}, "t.json");
  EXPECT_NEAR(us(in_only.cost(op_named("all_reduce"), {0}, static_cast<std::int64_t>(s))), 1.0, 1e-3);
}

// Faster together than alone (noise): the resource never slows them down.
TEST(MeasuredCostSharing, NoSlowdownMeansFullCapacity) {
  const std::uint64_t s = 32u << 20;
  std::vector<ResultRecord> records = {reduction({0}, s, 2000), reduction({1}, s, 2000)};
  ResultRecord together = reduction({0, 1}, s, 1900);
  together.at_once = {{0}, {1}};
  records.push_back(together);
  const auto sh =
      MeasuredCost(records, Placement{}, "t.json").sharing(op_named("all_reduce"), 1, static_cast<std::int64_t>(s));
  ASSERT_TRUE(sh.has_value());
  EXPECT_LT(sh->slowdown, 1.0);
  EXPECT_DOUBLE_EQ(sh->capacity(), 2.0);
}

}  // namespace
}  // namespace pipebench
