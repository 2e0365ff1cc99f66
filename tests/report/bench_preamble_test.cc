// SPDX-License-Identifier: Apache-2.0
// bench's preamble for small hand-made values: the plain lines of two host ranks, the lines only some flags
// add (--group, --split, -m/-a/-C, --pairs) with a link class, and nccl-tests' dialect with -z.
#include "report/bench_preamble.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/version.h"

namespace pipebench {
namespace {

SystemInfo two_host_ranks() {
  SystemInfo s;
  s.processes = 2;
  s.devices = {{{0, "a", ""}, 11, -1, "host memory"}, {{1, "b", ""}, 12, -1, "host memory"}};
  return s;
}
const SystemInfo kTwoHostRanks = two_host_ranks();

const std::string kDeviceLines =
    "#  Rank  0 Group  0 Pid     11 on          a device -1 [host] host memory\n"
    "#  Rank  1 Group  0 Pid     12 on          b device -1 [host] host memory\n";

BenchPreamble host_preamble(const MeasureSettings& m, const SweepSpec& s) {
  return {m, s, kTwoHostRanks, "mpi", {{"mpi", "Open MPI v4"}}, false, 2, 1, "", "", 1, 1, 1, 0, false};
}

std::string printed(const BenchPreamble& p) {
  std::ostringstream out;
  print_bench_preamble(out, p);
  return out.str();
}

TEST(BenchPreamble, PlainHostRanksNameTheSettingsAndDevices) {
  const MeasureSettings m;
  const SweepSpec s;
  EXPECT_EQ(printed(host_preamble(m, s)),
            std::string("# pipebench ") + kToolVersion + "  backend mpi  mpi Open MPI v4\n" +
                "# nranks 2 (2 processes x 1 host rank)  warmup 5  iters 20  reps 10  validation 1  graph 0\n"
                "# time = median over reps of (batch time, slowest rank) / iters\n"
                "#\n# Using devices\n" +
                kDeviceLines);
}

TEST(BenchPreamble, FlagLinesAndLinkClass) {
  MeasureSettings m;
  m.agg = 2;
  m.rank_stat = RankStat::kMean;
  m.cputime = true;
  m.point_budget_s = 1;
  SweepSpec s;
  s.group = {0, 1};
  s.params.pairs = {{0, 1}};
  s.params.bidirectional = true;
  BenchPreamble p = host_preamble(m, s);
  p.gpu_ranks = true;
  p.ranks_per_process = 4;
  p.link_class = "NV18";
  EXPECT_EQ(printed(p),
            std::string("# pipebench ") + kToolVersion + "  backend mpi  mpi Open MPI v4\n" +
                "# nranks 2 (2 processes x 4 GPU)  warmup 5  iters 20 (max; fewer for slow points)  reps 10  "
                "validation 1  graph 0\n"
                "# group 0 1 (the ops run on these ranks only)\n"
                "# agg iters 2  blocking 0  unalign 0  time over ranks: mean  time column: host time spent issuing the "
                "ops (-C)\n"
                "# pairs 0:1 (each in both directions at once); algbw = busbw = one message's bytes / time\n"
                "# time = median over reps of (batch time, mean over ranks) / iters\n"
                "#\n# Using devices\n" +
                kDeviceLines + "# link class of these ranks (the worst pair): NV18\n");
}

TEST(BenchPreamble, SplitNamesItsGroupsAndColoursTheDevices) {
  const MeasureSettings m;
  SweepSpec s;
  s.split = parse_split_expr("--split", "MOD 2");
  const std::string text = printed(host_preamble(m, s));
  EXPECT_NE(text.find("# split MOD 2: groups of processes running at once: {0} {1}; rows: time over all ranks, "
                      "busbw per group; the files also hold each group's own records\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#  Rank  1 Group  1 Pid     12"), std::string::npos) << text;
}

TEST(BenchPreamble, NcclTestsDialectLineForLine) {
  MeasureSettings m;
  m.blocking = 3;
  m.warmup = 1;
  SweepSpec s;
  s.sizes_bytes = {8, 64, 512};
  BenchPreamble p = host_preamble(m, s);
  p.nccl_tests_program = "all_reduce_perf";
  p.versions = {{"nccl", "2.28.3"}};
  p.step_factor = 8;
  p.link_class = "NV18";  // not a line of nccl-tests'
  EXPECT_EQ(printed(p),
            std::string("# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803 (pipebench ") +
                kToolVersion + ", mpi)\n" +
                "# Collective test starting: all_reduce_perf\n"
                "# nThread 1 nGpus 1 minBytes 8 maxBytes 512 step: 8(factor) warmup iters: 1 iters: 20 agg iters: 1 "
                "validation: 1 graph: 0 unalign: 0\n"
                "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n"
                "#\n# Using devices\n" +
                kDeviceLines);
}

}  // namespace
}  // namespace pipebench
