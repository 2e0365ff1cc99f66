// SPDX-License-Identifier: Apache-2.0
// End to end: the help a newcomer reads, agreement under mpirun when one rank's arguments are bad, the
// exit status of a profile that does not match its plan, and what `run` keeps in its folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/run_pipebench.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

std::string tmp(const std::string& name) { return "/tmp/pipebench_help_e2e_" + std::to_string(getpid()) + "_" + name; }

int own_lines(const std::string& s) {
  int n = 0;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) n += line.rfind("pipebench:", 0) == 0;
  return n;
}

class HelpE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  }
};

TEST_F(HelpE2E, TopLevelHelpListsEveryCommandPlanIncluded) {
  const Result r = run("--help");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* c : {"bench", "run", "topo", "pairs", "plan", "predict", "trace", "replay", "report"}) {
    EXPECT_NE(r.out.find("\n  " + std::string(c) + " "), std::string::npos) << c << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("the messages of a Megatron-LM pipeline plan"), std::string::npos) << r.out;
}

TEST_F(HelpE2E, PlanHelpShowsItsFlagsAndTheMegatronArguments) {
  const Result r = run("plan --help");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* flag : {"--json FILE", "-h,--help", "--num-layers", "--pipeline-model-parallel-size",
                           "--num-layers-per-virtual-pipeline-stage", "--global-batch-size"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag << "\n" << r.out;
  }
}

TEST_F(HelpE2E, RunHelpMentionsMegatronArgumentsAndBenchHelpTheGoogleBenchmarkFlags) {
  const Result run_help = run("run --help");
  ASSERT_EQ(run_help.status, 0) << run_help.err;
  EXPECT_NE(run_help.out.find("-- <Megatron-LM arguments>"), std::string::npos) << run_help.out;
  EXPECT_NE(run_help.out.find("--quiet"), std::string::npos) << run_help.out;
  const Result bench_help = run("bench --help");
  ASSERT_EQ(bench_help.status, 0) << bench_help.err;
  for (const char* flag : {"--benchmark_filter=REGEX", "--benchmark_format", "--benchmark_out=FILE", "--quiet"}) {
    EXPECT_NE(bench_help.out.find(flag), std::string::npos) << flag << "\n" << bench_help.out;
  }
  for (const char* command : {"pairs", "replay"}) {
    const Result r = run(std::string(command) + " --help");
    EXPECT_NE(r.out.find("--quiet"), std::string::npos) << command << "\n" << r.out;
  }
}

// One rank's words do not parse: every rank stops with exit 2 before anything runs, and one line names
// the rank, so the others never wait for it.
TEST_F(HelpE2E, OneRankWithBadArgumentsUnderMpirunIsNamedAndNothingRuns) {
  for (int bad : {1, 0}) {
    const std::string json = tmp("agree" + std::to_string(bad) + ".json");
    const Result r =
        run_shell("mpirun -np 2 --oversubscribe sh -c 'exec " PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8 --json " +
                  json + " $([ $OMPI_COMM_WORLD_RANK = " + std::to_string(bad) + " ] && echo --op all_to_all)'");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(own_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("pipebench: rank " + std::to_string(bad) + ": --op: unknown op 'all_to_all'"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(access(json.c_str(), F_OK), -1) << "nothing may run: " << json << " was written";
  }
}

TEST_F(HelpE2E, EveryRankWithTheSameBadArgumentsGetsOneLineWithoutARank) {
  const Result r = run("bench --backend mpi -b 8 -e 8 --op all_to_all", "mpirun -np 2 --oversubscribe");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("pipebench: --op: unknown op 'all_to_all'"), std::string::npos) << r.err;
}

// trace --plan: rows that do not match the plan make the exit status 3 (the profile and plan disagree),
// after the report; without --plan the same trace exits 0.
TEST_F(HelpE2E, TraceAgainstAMismatchingPlanExitsThree) {
  const std::string fixture = TEST_DATA_DIR "/trace/kineto_allreduce_1gpu.json";
  const std::string plan = tmp("plan.json");
  const Result p =
      run("plan --json " + plan +
          " -- --num-layers 8 --hidden-size 128 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
          "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --world-size 4 "
          "--vocab-size 1000 --bf16");
  ASSERT_EQ(p.status, 0) << p.err;
  const Result plain = run("trace " + fixture);
  EXPECT_EQ(plain.status, 0) << plain.err;
  const Result r = run("trace " + fixture + " --plan " + plan);
  EXPECT_EQ(r.status, 3) << r.err << r.out;
  EXPECT_NE(r.out.find("mismatching row"), std::string::npos) << r.out;  // the report came first
  EXPECT_NE(r.err.find("of the profile do not match --plan " + plan), std::string::npos) << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  std::remove(plan.c_str());
}

TEST_F(HelpE2E, RunKeepsItsSummaryAndVerdictInTheRunFolder) {
  const std::string dir = tmp("runsummary");
  const Result r = run("run --backend mpi --out " + dir + " -e 1K --point-seconds 0.05 --no-plan --quiet");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const std::string summary = slurp(dir + "/summary.txt");
  EXPECT_NE(summary.find("# Summary (files in " + dir + ")"), std::string::npos) << summary;
  // The report's own verdict line: PASS, or WARN where the shared machine made some points unstable;
  // either way exit 0.
  const std::string verdict_line = nlohmann::json::parse(slurp(dir + "/report.json")).at("verdict_line");
  EXPECT_TRUE(verdict_line.rfind("PASS on ", 0) == 0 || verdict_line.rfind("WARN on ", 0) == 0) << verdict_line;
  EXPECT_NE(summary.find("# Report: " + verdict_line + " (exit 0): " + dir + "/report.html"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("# Exit status 0"), std::string::npos) << summary;
  // The file holds what the console showed.
  const std::string table = summary.substr(0, summary.find("#\n# Report:"));
  EXPECT_NE(r.out.find(table), std::string::npos) << summary << "\n---\n" << r.out;
  EXPECT_NE(r.out.find("summary.txt"), std::string::npos) << r.out;
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
