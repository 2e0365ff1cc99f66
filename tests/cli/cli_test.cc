// SPDX-License-Identifier: Apache-2.0
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "app/bench_command.h"
#include "app/commands.h"
#include "app/run_command.h"
#include "core/error.h"
#include "core/word_lists.h"

namespace pipebench {
namespace {

// A parse against the real command table; the table owns the command the line names.
struct Parsed {
  CommandTable table = make_command_table();
  ParsedLine line;
};

Parsed parse(const std::vector<std::string>& args) {
  Parsed p;
  p.line = parse_line(p.table, args);
  return p;
}

std::vector<std::string> op_names(const std::vector<const Op*>& ops) {
  std::vector<std::string> out;
  for (const Op* op : ops) out.emplace_back(op->name());
  return out;
}

BenchConfig bench(const std::vector<std::string>& args) {
  const Parsed p = parse(args);
  const auto* command = dynamic_cast<const BenchCommand*>(p.line.command);
  if (!command) throw std::runtime_error("not a bench command line");
  return command->config();
}

std::string usage_error(const std::vector<std::string>& args) {
  try {
    (void)parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cli, BenchTakesNcclTestsFlags) {
  const Parsed p = parse({"bench", "--op",   "all_reduce,all_gather",
                          "-b",    "8",      "-e",
                          "1M",    "-f",     "4",
                          "-n",    "7",      "-w",
                          "2",     "-c",     "0",
                          "-d",    "half",   "-o",
                          "max",   "--reps", "3"});
  ASSERT_EQ(p.line.kind, ParsedLine::Kind::kCommand);
  ASSERT_EQ(p.line.command->name(), "bench");
  const BenchConfig c = dynamic_cast<const BenchCommand&>(*p.line.command).config();
  EXPECT_EQ(op_names(c.sweep.ops), (std::vector<std::string>{"all_reduce", "all_gather"}));
  EXPECT_EQ(c.sweep.sizes_bytes.size(), 9u);  // 8, 32, ..., 512K: 8 * 4^9 = 2M is past -e
  EXPECT_EQ(c.sweep.sizes_bytes.back(), 512u << 10);
  EXPECT_EQ(c.measure.iters, 7);
  EXPECT_EQ(c.measure.warmup, 2);
  EXPECT_EQ(c.measure.checks, 0);
  EXPECT_EQ(c.measure.reps, 3);
  EXPECT_EQ(c.sweep.dtypes, std::vector<DType>{DType::kHalf});
  EXPECT_EQ(c.sweep.redops, std::vector<RedOp>{RedOp::kMax});
}

TEST(Cli, DefaultsFollowNcclTests) {
  const BenchConfig c = bench({"bench"});
  EXPECT_EQ(c.sweep.sizes_bytes, std::vector<std::uint64_t>{32u << 20});
  EXPECT_EQ(op_names(c.sweep.ops), std::vector<std::string>{"all_reduce"});
  EXPECT_EQ(c.measure.iters, 20);
  EXPECT_EQ(c.measure.checks, 1);
}

TEST(Cli, BenchTakesTheRestOfNcclTestsFlags) {
  const BenchConfig c = bench({"bench", "-t", "2", "-m", "4", "-N", "3", "-a", "1", "-z", "3", "-C",      "1",   "-R",
                               "2",     "-u", "1", "-S", "1", "-M", "1", "-p", "1", "-K", "2", "--alloc", "cuda"});
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.measure.agg, 4);
  EXPECT_EQ(c.cycles, 3);
  EXPECT_EQ(c.measure.rank_stat, RankStat::kMean);
  EXPECT_EQ(c.measure.blocking, 3);
  EXPECT_TRUE(c.measure.cputime);
  EXPECT_EQ(c.measure.buffers.registration, 2);
  EXPECT_EQ(c.measure.buffers.alloc, BufferAlloc::kCuda);
  EXPECT_EQ(c.measure.unalign_elems, 1);
  EXPECT_TRUE(c.measure.timestamps);
  EXPECT_TRUE(c.memory_report);
  EXPECT_TRUE(c.parallel_init);
  EXPECT_EQ(c.measure.per_iter_skip, 2);
  EXPECT_EQ(bench({"bench", "--alloc", "ncclmem"}).measure.buffers.alloc, BufferAlloc::kNcclMem);
  const BenchConfig d = bench({"bench"});
  EXPECT_EQ(d.measure.buffers.alloc, BufferAlloc::kDefault);  // ncclmem where NCCL has it
  EXPECT_EQ(d.measure.rank_stat, RankStat::kMax);
  EXPECT_EQ(d.measure.agg, 1);
  EXPECT_EQ(d.cycles, 1);
  EXPECT_FALSE(d.sweep.split.has_value());
}

TEST(Cli, PerIterationTimingTakesOneSamplePerIteration) {
  const BenchConfig c = bench({"bench", "-I", "1", "-n", "30", "-K", "5"});
  EXPECT_EQ(c.measure.reps, 30);
  EXPECT_EQ(c.measure.iters, 1);
  EXPECT_EQ(c.measure.per_iter_skip, 5);
}

// Started as an nccl-tests binary: bench keeps the name for nccl-tests' text, the sweep gets nccl-tests' points.
TEST(Cli, NcclTestsNameGivesTheSweepNcclTestsPoints) {
  const BenchConfig c = bench({"bench", "--op", "all_reduce", "--nccl-tests-name", "all_reduce_perf"});
  EXPECT_EQ(c.nccl_tests_program, "all_reduce_perf");
  EXPECT_TRUE(c.sweep.nccl_tests_points);
  EXPECT_EQ(c.measure.reps, 1);  // nccl-tests' default: one timed batch
  const BenchConfig d = bench({"bench", "--op", "all_reduce"});
  EXPECT_TRUE(d.nccl_tests_program.empty());
  EXPECT_FALSE(d.sweep.nccl_tests_points);
}

TEST(Cli, SplitComesFromTheFlagOrNcclTestsVariables) {
  EXPECT_EQ(bench({"bench", "--split", "MOD 2"}).sweep.split->kind, SplitRule::Kind::kMod);
  setenv("NCCL_TESTS_SPLIT", "DIV 4", 1);
  EXPECT_EQ(bench({"bench"}).sweep.split->kind, SplitRule::Kind::kDiv);
  EXPECT_EQ(bench({"bench", "--split", "%2"}).sweep.split->kind, SplitRule::Kind::kMod);  // the flag first
  setenv("NCCL_TESTS_SPLIT_MASK", "0x3", 1);                                              // the mask before SPLIT
  EXPECT_EQ(bench({"bench"}).sweep.split->value, 3u);
  setenv("NCCL_TESTS_SPLIT_MASK", "zz", 1);
  EXPECT_NE(usage_error({"bench"}).find("NCCL_TESTS_SPLIT_MASK 'zz'"), std::string::npos);
  unsetenv("NCCL_TESTS_SPLIT_MASK");
  unsetenv("NCCL_TESTS_SPLIT");
}

TEST(Cli, NcclTestsFlagsRejectBadValues) {
  EXPECT_NE(usage_error({"bench", "-a", "4"}).find("--average"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-z", "5"}).find("--blocking"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-R", "3"}).find("--local_register"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-m", "0"}).find("--agg_iters"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-u", "-1"}).find("--unalign"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-K", "10", "--reps", "10"}).find("-K 10: must leave at least one"),
            std::string::npos);
  EXPECT_NE(usage_error({"bench", "-I", "1", "--reps", "3"}).find("-I 1"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-z", "1", "-G", "1"}).find("-z 1: a CUDA graph"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--alloc", "malloc"}).find("--alloc: unknown allocator 'malloc'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--split", "XOR 1"}).find("--split 'XOR 1'"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--split", "MOD 2", "--group", "0,1"}).find("--split cannot be combined"),
            std::string::npos);
}

TEST(Cli, OpAllTakesEveryOpButPairUnlessPairsAreGiven) {
  EXPECT_EQ(bench({"bench", "--op", "all"}).sweep.ops.size(), 9u);
  EXPECT_EQ(bench({"bench", "--op", "all", "--pairs", "0:1"}).sweep.ops.size(), 10u);
}

TEST(Cli, GoogleBenchmarkFlagsPassThrough) {
  const BenchConfig c = bench({"bench", "--benchmark_format=json", "--benchmark_out=x.json"});
  EXPECT_EQ(c.measure.benchmark_args, (std::vector<std::string>{"--benchmark_format=json", "--benchmark_out=x.json"}));
}

TEST(Cli, GoogleBenchmarkFlagsOnlyForBenchAndRun) {
  const std::vector<std::vector<std::string>> lines = {
      {"pairs"}, {"topo"}, {"predict", "--plan", "p.json"}, {"trace", "t.json"}};
  for (auto line : lines) {
    line.push_back("--benchmark_filter=x");
    EXPECT_EQ(usage_error(line), "--benchmark_filter=x: Google Benchmark flags apply to bench and run only")
        << line.front();
  }
}

TEST(Cli, BadInputNamesTheFlagOrValue) {
  EXPECT_EQ(usage_error({"bench", "-b", "1M", "-e", "8K"}), "-b 1M is larger than -e 8K");
  EXPECT_NE(usage_error({"bench", "-b", "0"}).find("-b"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-e", "lots"}).find("-e: 'lots' is not a valid size"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "-b", "-5"}).find("-b"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--sizes", "8,0"}).find("--sizes"), std::string::npos);
  EXPECT_NE(usage_error({"bench", "--op", "all2all"}).find("--op: unknown op 'all2all'"), std::string::npos);
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

// One line naming the unknown word with the nearest known one, instead of CLI11's own text.
TEST(Cli, UnknownSubcommandsAndFlagsGetDidYouMean) {
  EXPECT_EQ(usage_error({"predict", "--link-gbs", "1.17"}),
            "predict: unknown flag --link-gbs (did you mean --link-gbps?); pipebench predict --help lists them");
  EXPECT_EQ(usage_error({"benchmark"}),
            "unknown subcommand 'benchmark' (did you mean bench?); pipebench --help lists them");
  EXPECT_EQ(usage_error({"pari", "--sizes", "8"}),
            "unknown subcommand 'pari' (did you mean pairs?); pipebench --help lists them");
  EXPECT_EQ(usage_error({"frobnicate"}), "unknown subcommand 'frobnicate'; pipebench --help lists them");
  EXPECT_EQ(usage_error({"--verison"}),
            "unknown flag --verison (did you mean --version?); pipebench --help lists them");
  EXPECT_EQ(usage_error({"bench", "-b", "8", "--itres", "3"}),
            "bench: unknown flag --itres (did you mean --iters?); pipebench bench --help lists them");
  EXPECT_EQ(usage_error({"bench", "--minbytes=8", "--op=all_reduce", "--maxbyte=16"}),
            "bench: unknown flag --maxbyte (did you mean --maxbytes?); pipebench bench --help lists them");
  // A negative number is a value, not a flag: the range check speaks for it.
  EXPECT_NE(usage_error({"bench", "-b", "-5"}).find("-b"), std::string::npos);
  // A missing positional names the usage.
  EXPECT_EQ(usage_error({"import"}),
            "import: FORMAT is required; usage: pipebench import FORMAT FILE... [flags] (pipebench import --help)");
}

TEST(Cli, HelpAndVersionAreNotErrors) {
  EXPECT_EQ(parse({"--help"}).line.kind, ParsedLine::Kind::kHelp);
  EXPECT_NE(parse({"bench", "--help"}).line.help_text.find("--minbytes"), std::string::npos);
  EXPECT_EQ(parse({"--version"}).line.kind, ParsedLine::Kind::kVersion);
  EXPECT_EQ(parse({}).line.kind, ParsedLine::Kind::kHelp);
  const std::string plan_help = parse({"plan", "--help"}).line.help_text;
  EXPECT_NE(plan_help.find("Usage: pipebench plan [--json FILE] -- <Megatron-LM arguments>\n"), std::string::npos);
  EXPECT_NE(plan_help.find("  --json FILE "), std::string::npos) << plan_help;
  EXPECT_NE(plan_help.find("--pipeline-model-parallel-size"), std::string::npos) << plan_help;
}

TEST(Cli, TopLevelHelpListsTheTableInOrder) {
  const std::string help = parse({"--help"}).line.help_text;
  std::size_t at = 0;
  for (const char* name : {"bench", "run", "topo", "pairs", "plan", "predict", "trace"}) {
    const std::size_t found = help.find(std::string("  ") + name + " ", at);
    ASSERT_NE(found, std::string::npos) << name;
    at = found;
  }
}

TEST(Cli, RunHasDefaultsForTheMainJob) {
  const Parsed p = parse({"run"});
  ASSERT_EQ(p.line.kind, ParsedLine::Kind::kCommand);
  const RunOptions& o = dynamic_cast<const RunCommand&>(*p.line.command).options();
  EXPECT_EQ(o.min_bytes, 8u);
  EXPECT_EQ(o.max_bytes, 1u << 30);
  EXPECT_EQ(o.factor, 4u);
  EXPECT_EQ(o.host_ranks, 4);
  EXPECT_NE(usage_error({"run", "-e", "4", "-b", "8"}).find("-b 8 is larger than -e 4"), std::string::npos);
}

TEST(Cli, RunHandsWordsAfterTheSeparatorToMegatron) {
  // Complete Megatron arguments: run checks them while parsing, before anything is measured.
  const std::vector<std::string> megatron = {"--num-layers",
                                             "4",
                                             "--hidden-size",
                                             "64",
                                             "--num-attention-heads",
                                             "4",
                                             "--seq-length",
                                             "32",
                                             "--max-position-embeddings",
                                             "32",
                                             "--micro-batch-size",
                                             "1",
                                             "--global-batch-size",
                                             "8",
                                             "--vocab-size",
                                             "99"};
  std::vector<std::string> line = {"run", "--benchmark_min_time=1", "--"};
  line.insert(line.end(), megatron.begin(), megatron.end());
  const Parsed p = parse(line);
  const RunOptions& o = dynamic_cast<const RunCommand&>(*p.line.command).options();
  EXPECT_EQ(o.megatron_args, megatron);
  EXPECT_EQ(o.benchmark_args, std::vector<std::string>{"--benchmark_min_time=1"});
  // A Google Benchmark-looking word after "--" reaches the Megatron parser (which refuses it), not benchmark.
  line.push_back("--benchmark_x");
  EXPECT_EQ(usage_error(line).rfind("Megatron arguments: unrecognized arguments: --benchmark_x", 0), 0u)
      << usage_error(line);
}

TEST(Cli, OnlyMeasuringCommandsNeedTheWorld) {
  for (const auto& c : make_command_table()) {
    const bool measures = c->name() == "bench" || c->name() == "run" || c->name() == "pairs" || c->name() == "replay";
    EXPECT_EQ(c->needs_world(), measures) << c->name();
  }
}

TEST(Cli, PlanKeepsMegatronWordsAwayFromTheParser) {
  EXPECT_EQ(parse({"plan", "--json", "p.json", "--", "--num-layers", "4"}).line.kind, ParsedLine::Kind::kCommand);
  EXPECT_EQ(usage_error({"plan", "--bogus", "--", "--num-layers", "4"}),
            "--bogus: unknown plan option (Megatron arguments go after --)");
  EXPECT_EQ(usage_error({"plan", "--json"}), "--json: a file name is required");
}

TEST(ParseRankList, SortsAndRejectsDuplicates) {
  EXPECT_EQ(parse_rank_list("--group", "3,0"), (std::vector<int>{0, 3}));
  EXPECT_THROW((void)parse_rank_list("--group", "1,1"), UsageError);
  EXPECT_THROW((void)parse_rank_list("--group", ""), UsageError);
}

}  // namespace
}  // namespace pipebench
