// SPDX-License-Identifier: Apache-2.0
#include "cli/cli.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pipebench {
namespace {

Command parse(std::vector<std::string> args) { return parse_command_line(args); }

std::string usage_error(std::vector<std::string> args) {
  try {
    (void)parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cli, BenchTakesNcclTestsFlags) {
  const Command c = parse({"bench", "--op", "all_reduce,all_gather", "-b", "8", "-e", "1M", "-f", "4", "-n", "7",
                           "-w", "2", "-c", "0", "-d", "half", "-o", "max", "--reps", "3"});
  ASSERT_EQ(c.kind, Command::Kind::kBench);
  EXPECT_EQ(c.bench.ops, (std::vector<std::string>{"all_reduce", "all_gather"}));
  EXPECT_EQ(c.bench.sizes_bytes.size(), 9u);  // 8, 32, ..., 512K: 8 * 4^9 = 2M is past -e
  EXPECT_EQ(c.bench.sizes_bytes.back(), 512u << 10);
  EXPECT_EQ(c.bench.iters, 7);
  EXPECT_EQ(c.bench.warmup, 2);
  EXPECT_EQ(c.bench.checks, 0);
  EXPECT_EQ(c.bench.reps, 3);
  EXPECT_EQ(c.bench.dtypes, std::vector<DType>{DType::kHalf});
  EXPECT_EQ(c.bench.redops, std::vector<RedOp>{RedOp::kMax});
}

TEST(Cli, DefaultsFollowNcclTests) {
  const Command c = parse({"bench"});
  EXPECT_EQ(c.bench.sizes_bytes, std::vector<std::uint64_t>{32u << 20});
  EXPECT_EQ(c.bench.ops, std::vector<std::string>{"all_reduce"});
  EXPECT_EQ(c.bench.iters, 20);
  EXPECT_EQ(c.bench.checks, 1);
}

TEST(Cli, OpAllTakesEveryOpButPairUnlessPairsAreGiven) {
  EXPECT_EQ(parse({"bench", "--op", "all"}).bench.ops.size(), 5u);
  EXPECT_EQ(parse({"bench", "--op", "all", "--pairs", "0:1"}).bench.ops.size(), 6u);
}

TEST(Cli, GoogleBenchmarkFlagsPassThrough) {
  const Command c = parse({"bench", "--benchmark_format=json", "--benchmark_out=x.json"});
  EXPECT_EQ(c.bench.benchmark_args, (std::vector<std::string>{"--benchmark_format=json", "--benchmark_out=x.json"}));
}

TEST(Cli, BadInputNamesTheFlagOrValue) {
  EXPECT_EQ(usage_error({"bench", "-b", "1M", "-e", "8K"}), "-b 1M is larger than -e 8K");
  EXPECT_NE(usage_error({"bench", "-b", "0"}).find("-b"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-e", "lots"}).find("-e: 'lots' is not a valid size"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-b", "-5"}).find("-b"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--sizes", "8,0"}).find("--sizes"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--op", "alltoall"}).find("--op: unknown op 'alltoall'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-d", "fp8"}).find("-d: unknown data type 'fp8'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-o", "avg"}).find("-o: unknown reduction 'avg'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-n", "0"}).find("--iters: Value 0 not in range"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--backend", "gloo"}).find("--backend: unknown backend 'gloo'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--op", "pair"}).find("--op pair needs --pairs"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--bidir"}).find("--bidir applies only to --op pair"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--op", "pair", "--pairs", "0-1"}).find("--pairs"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--sizes", "8", "-b", "8"}).find("--sizes cannot be combined"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--group", "0,x"}).find("--group"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-G", "1", "--backend", "mpi"}).find("-G"), std::string::npos);
  EXPECT_NE(usage_error({"frobnicate"}).find("frobnicate"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-f", "1", "-i", "0"}).find("-i"), std::string::npos);
  EXPECT_NE(usage_error({"--benchmark_filter=x"}).find("subcommand"), std::string::npos);
}

TEST(Cli, HelpAndVersionAreNotErrors) {
  EXPECT_EQ(parse({"--help"}).kind, Command::Kind::kHelp);
  EXPECT_NE(parse({"bench", "--help"}).help_text.find("--minbytes"), std::string::npos);
  EXPECT_EQ(parse({"--version"}).kind, Command::Kind::kVersion);
  EXPECT_EQ(parse({}).kind, Command::Kind::kHelp);
}

TEST(Cli, RunHasDefaultsForTheMainJob) {
  const Command c = parse({"run"});
  ASSERT_EQ(c.kind, Command::Kind::kRun);
  EXPECT_EQ(c.run.min_bytes, 8u);
  EXPECT_EQ(c.run.max_bytes, 1u << 30);
  EXPECT_EQ(c.run.factor, 4u);
  EXPECT_EQ(c.run.host_ranks, 4);
  EXPECT_NE(usage_error({"run", "-e", "4", "-b", "8"}).find("-b 8 is larger than -e 4"), std::string::npos);
}

TEST(ParseRankList, SortsAndRejectsDuplicates) {
  EXPECT_EQ(parse_rank_list("--group", "3,0"), (std::vector<int>{0, 3}));
  EXPECT_THROW((void)parse_rank_list("--group", "1,1"), UsageError);
  EXPECT_THROW((void)parse_rank_list("--group", ""), UsageError);
}

}  // namespace
}  // namespace pipebench
