// SPDX-License-Identifier: Apache-2.0
// End to end: the built pipebench binary, started as users start it (alone and under mpirun -np 2/4).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli/run_pipebench.h"
#include "io/prediction_io.h"
#include "trace/nsys_fixture.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

std::string tmp(const std::string& name) { return "/tmp/pipebench_e2e_" + std::to_string(getpid()) + "_" + name; }

const char* kMpirun2 = "mpirun -np 2 --oversubscribe";
const char* kMpirun4 = "mpirun -np 4 --oversubscribe";

class E2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  }
};

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Each bad input: exit status 2 and one line on stderr that names the flag or value.
// Under mpirun, mpirun adds its own banner about the exit status: count only pipebench's lines.
int own_lines(const std::string& s) {
  int n = 0;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) n += line.rfind("pipebench:", 0) == 0;
  return n;
}

void expect_usage_error(const std::string& args, const std::string& needle, const std::string& launcher = "") {
  const Result r = run(args, launcher);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_EQ(launcher.empty() ? lines(r.err) : own_lines(r.err), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
}

TEST_F(E2E, BadInputGetsOneLineAndExitStatusTwo) {
  expect_usage_error("bench --bogus", "--bogus");  // nccl-tests exits 0 here
  expect_usage_error("bench -b 1M -e 8K", "-b 1M is larger than -e 8K");
  expect_usage_error("bench -b 0 -e 64", "-b");  // nccl-tests hangs here
  expect_usage_error("bench -b banana", "-b: 'banana' is not a valid size");
  expect_usage_error("bench -e -8", "-e");
  expect_usage_error("bench -b 8 -e 64T", "-i 1M: the sweep from -b 8 to -e 64T would have more than 10000 sizes");
  expect_usage_error("bench --sizes 8,0,16", "--sizes");
  expect_usage_error("bench --op all_to_all", "--op: unknown op 'all_to_all'");
  expect_usage_error("bench -d float8", "-d: unknown data type 'float8'");
  expect_usage_error("bench -o avg", "-o: unknown reduction 'avg'");
  expect_usage_error("bench -g 64 -b 8 -e 8", "-g 64");
  expect_usage_error("bench --backend mpi -b 8 -e 64T -f 2", "-e/--sizes: all_reduce at 64T needs 131072.00 GiB");
  expect_usage_error("bench --backend mpi --op pair --pairs 0:3 -b 8 -e 8",
                     "--pairs: pair 0:3 names a rank out of range");
  expect_usage_error("bench --backend mpi --group 0,5 -b 8 -e 8", "--group: rank 5 is out of range");
  expect_usage_error("bench --backend mpi -b 8 -e 8 --json /nonexistent-dir/r.json", "--json");
  expect_usage_error("bench --benchmark_bogus=1 --backend mpi -b 8 -e 8", "--benchmark_bogus");
}

// --gpus: a malformed or repeated entry stops the run before any device is touched (so also here, without
// a GPU); the mpi backend takes none.
TEST_F(E2E, BadGpusListsAreOneLineAndExitStatusTwo) {
  expect_usage_error("bench --gpus 0,gpu1 -b 8 -e 8", "--gpus 'gpu1': not a CUDA index (0), a UUID");
  expect_usage_error("bench --gpus 0,,1 -b 8 -e 8", "--gpus '0,,1': an empty entry");
  expect_usage_error("bench --gpus GPU-5a3c0e1f -b 8 -e 8", "--gpus 'GPU-5a3c0e1f'");
  expect_usage_error("bench --gpus 17:00.0,0000:17:00.0 -b 8 -e 8", "--gpus '0000:17:00.0': given twice");
  expect_usage_error("bench --backend mpi --gpus 0 -b 8 -e 8", "--gpus: the mpi backend runs on host memory");
  expect_usage_error("bench --backend mpi --gpus 0 -b 8 -e 8", "--gpus: the mpi backend", kMpirun2);
}

// pairs and run take --gpus as bench does. With no GPU visible (hidden here, so also on a GPU node) the GPUs
// named cannot be used: one line, exit 2, and no fallback to host ranks under mpirun.
TEST_F(E2E, PairsAndRunTakeGpusAndSayWhenNoneIsVisible) {
  for (const std::string cmd : {"bench", "pairs", "run"}) {
    expect_usage_error(cmd + " --gpus 0,,1", "--gpus '0,,1': an empty entry");
    expect_usage_error(cmd + " --backend mpi --gpus 0", "--gpus: the mpi backend runs on host memory");
    expect_usage_error(cmd + " --gpus 0" + (cmd == "pairs" ? "" : " -b 8 -e 8"),
                       "--gpus: no GPU is visible to this process", "CUDA_VISIBLE_DEVICES=");
  }
}

TEST_F(E2E, DifferentArgumentsOnDifferentRanksAreRefused) {
  // The shell expands a different -n on each rank.
  const Result direct =
      run_shell(std::string(kMpirun2) + " sh -c 'exec " PIPEBENCH_BIN
                                        " bench --backend mpi -b 8 -e 8 -n $((1 + OMPI_COMM_WORLD_RANK))'");
  EXPECT_EQ(direct.status, 2) << direct.err;
  EXPECT_NE(direct.err.find("arguments differ between ranks: rank 1 got 'bench --backend mpi -b 8 -e 8 -n 2'"),
            std::string::npos)
      << direct.err;
}

// Every op at np 2 and 4 with exact results, and the results JSON against its documented schema.
void check_mpi_run(const char* launcher, int np) {
  const std::string json = tmp("np" + std::to_string(np) + ".json");
  const std::string csv = tmp("np" + std::to_string(np) + ".csv");
  const Result r =
      run("bench --backend mpi --op all --pairs 0:" + std::to_string(np - 1) +
              " --bidir -b 8 -e 64K -f 32 -d float,int8 -o sum,max -n 3 --reps 3 --json " + json + " --csv " + csv,
          launcher);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv", "pair"}) {
    EXPECT_NE(r.out.find(std::string("# Collective test starting: ") + op), std::string::npos) << op;
  }
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["schema"], "pipebench.results/1");
  for (const char* key : {"tool_version", "created_utc", "system", "config", "records"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"hosts", "gpu_models", "devices", "versions", "environment"}) {
    EXPECT_TRUE(j["system"].contains(key)) << key;
  }
  EXPECT_EQ(j["system"]["processes"], np);
  // 3 sizes; all_reduce/reduce_scatter/reduce: 2 types x 2 redops x 2 placements; all_gather/broadcast/
  // gather/scatter: 2 types x 2 placements; sendrecv/pair/alltoall: 2 types.
  EXPECT_EQ(j["records"].size(), 3u * (8 + 8 + 8 + 4 + 4 + 4 + 4 + 2 + 2 + 2));
  std::set<std::string> ops;
  for (const auto& rec : j["records"]) {
    ops.insert(rec["op"].get<std::string>());
    EXPECT_EQ(rec["wrong"], 0) << rec.dump();
    EXPECT_EQ(rec["backend"], "mpi");
    EXPECT_EQ(rec["nranks"], np);
    EXPECT_EQ(rec["ranks"].size(), static_cast<std::size_t>(np));
    EXPECT_EQ(rec["stats"]["samples"], 3);
    EXPECT_LE(rec["stats"]["min_us"].get<double>(), rec["stats"]["median_us"].get<double>());
    EXPECT_LE(rec["stats"]["median_us"].get<double>(), rec["stats"]["max_us"].get<double>());
    EXPECT_DOUBLE_EQ(rec["time_us"].get<double>(), rec["stats"]["median_us"].get<double>());
    for (const char* key : {"dtype", "redop", "root", "size_bytes", "count", "in_place", "algbw_gbps", "busbw_gbps"}) {
      EXPECT_TRUE(rec.contains(key)) << key;
    }
  }
  EXPECT_EQ(ops.size(), 10u);
  EXPECT_EQ(lines(slurp(csv)), 1 + static_cast<int>(j["records"].size()));
  std::remove(json.c_str());
  std::remove(csv.c_str());
}

TEST_F(E2E, EveryOpIsExactAtTwoRanks) { check_mpi_run(kMpirun2, 2); }
TEST_F(E2E, EveryOpIsExactAtFourRanks) { check_mpi_run(kMpirun4, 4); }

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// nccl-tests' flags on the MPI backend: all accepted, each without meaning there said once, every
// record exact, -N repeating the sweep, -S stamping every record, -M printing the memory line.
TEST_F(E2E, NcclTestsFlagsRunOnTheMpiBackend) {
  const std::string json = tmp("flags.json");
  const Result r =
      run("bench --backend mpi --op all_reduce,alltoall -b 1K -e 4K -f 4 -n 2 --reps 2 -m 2 -N 2 -a 1 "
          "-z 1 -u 1 -S 1 -M 1 -C 1 -R 1 -t 2 -p 1 --json " +
              json,
          kMpirun2);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  for (const char* flag : {"note: -t", "note: -R", "note: -C", "note: -p 1"}) {
    EXPECT_EQ(occurrences(r.err, flag), 1u) << flag << "\n" << r.err;
  }
  EXPECT_NE(r.out.find("# Host memory usage : free after init"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time over ranks: mean"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["config"]["agg_iters"], 2);
  // 2 cycles x (all_reduce: 2 sizes x 2 placements + alltoall: 2 sizes).
  ASSERT_EQ(j["records"].size(), 12u);
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["wrong"], 0) << rec.dump();
    EXPECT_EQ(rec["timestamp"].get<std::string>().size(), 19u) << rec.dump();  // YYYY-MM-DD HH:MM:SS
  }
  std::remove(json.c_str());
}

// --split MOD 2 at np 4: two groups of two ranks at once. The table keeps nccl-tests' row (time over all
// ranks); the files hold each group's own record, with its ranks; the config lists every group.
TEST_F(E2E, SplitRunsConcurrentGroups) {
  const std::string json = tmp("split.json"), jsonl = tmp("split.jsonl");
  const Result r = run("bench --backend mpi --op all_reduce,gather -b 4K -e 4K -n 2 --reps 2 --split 'MOD 2' --json " +
                           json + " --jsonl " + jsonl,
                       kMpirun4);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# split MOD 2: groups of processes running at once: {0,2} {1,3}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#  Rank  1 Group  1 Pid"), std::string::npos) << r.out;  // nccl-tests' colour of rank 1
  EXPECT_EQ(occurrences(r.out, "        4096  "), 2u) << r.out;  // one row per op (both placements), as before
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["records"].size(), 8u);  // 2 ops x 2 placements x 2 groups
  std::set<std::string> seen;
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["wrong"], 0) << rec.dump();
    EXPECT_EQ(rec["nranks"], 2);
    const int g = rec["split_group"].get<int>();
    EXPECT_EQ(rec["ranks"], g == 0 ? nlohmann::json::array({0, 2}) : nlohmann::json::array({1, 3})) << rec.dump();
    EXPECT_GT(rec["time_us"].get<double>(), 0.0);
    seen.insert(rec["op"].get<std::string>() + "/" + std::to_string(g) + "/" + rec["in_place"].dump());
  }
  EXPECT_EQ(seen.size(), 8u);
  std::istringstream lines(slurp(jsonl));
  int groups_in_jsonl[2] = {0, 0};
  for (std::string l; std::getline(lines, l);) ++groups_in_jsonl[nlohmann::json::parse(l)["split_group"].get<int>()];
  EXPECT_EQ(groups_in_jsonl[0], 4);
  EXPECT_EQ(groups_in_jsonl[1], 4);
  std::remove(jsonl.c_str());
  // Every group that ran at once is in the file, as ranks.
  EXPECT_EQ(j["config"]["split_groups"], nlohmann::json::parse("[[0, 2], [1, 3]]")) << j["config"].dump();
  const Result bad = run("bench --backend mpi -b 8 -e 8 --split 'MOD 0'", kMpirun2);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--split 'MOD 0': MOD by 0"), std::string::npos) << bad.err;
  std::remove(json.c_str());
}

TEST_F(E2E, GoogleBenchmarkJsonCarriesTheCounters) {
  const std::string out = tmp("gbench.json");
  const Result r =
      run("bench --backend mpi -b 1K -e 4K -f 2 --reps 4 --benchmark_out=" + out + " --benchmark_out_format=json",
          kMpirun2);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(out));
  ASSERT_EQ(j["benchmarks"].size(), 6u);
  for (const auto& b : j["benchmarks"]) {
    EXPECT_EQ(b["iterations"], 4);
    for (const char* key : {"algbw_GBps", "busbw_GBps", "bytes"}) EXPECT_TRUE(b.contains(key)) << key;
  }
  EXPECT_EQ(j["benchmarks"][0]["name"], "all_reduce/float/sum/1024/out-of-place/iterations:4/manual_time");
  std::remove(out.c_str());
}

TEST_F(E2E, TimeoutTurnsASlowPointIntoAnErrorNamingIt) {
  const Result r = run("bench --backend mpi -b 64M -e 64M -w 50 -T 0.01", kMpirun2);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("-T 0.01: all_reduce/float/sum/67108864/out-of-place did not finish within 0.01 s on rank"),
            std::string::npos)
      << r.err;
}

// A rank stopped as by `kill -STOP` (its heartbeat stands still, its own watchdog never starts) before the
// first point: the line names that rank as the one that stopped answering and the three that waited, once
// for the job; no waiting rank blames itself ("... within 3 s on rank 0 on host H").
TEST_F(E2E, TimeoutNamesTheStoppedRankNotTheOnesWaitingForIt) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r =
      run("bench --backend mpi -b 1K -e 1K -T 3", std::string("PIPEBENCH_BENCH_TEST_STOP=1:0 ") + kMpirun4);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.status, 0);
  EXPECT_LT(wall_s, 40.0) << "the job did not end within -T and the grace (plus start-up)";
  const std::string head =
      "pipebench: -T 3: all_reduce/float/sum/1024/out-of-place did not finish within 3 s: rank 1 (host ";
  const std::size_t first = r.err.find(head);
  ASSERT_NE(first, std::string::npos) << r.err;
  const std::string line = r.err.substr(first, r.err.find('\n', first) - first);
  EXPECT_NE(line.find(") stopped answering; ranks 0, 2, 3 answered"), std::string::npos) << line;
  EXPECT_EQ(r.err.find("did not finish", first + line.size()), std::string::npos) << "one line for the job:\n" << r.err;
}

TEST_F(E2E, ReportRecordsTheLaunchEnvironmentOnlyAllowListedAndWithoutMpiSingletonNoise) {
  const std::string json = tmp("env.json");
  const Result r = run_shell("NCCL_DEBUG=WARN NCCL_API_KEY=hunter2 HOME_SECRET=x " PIPEBENCH_BIN
                             " bench --backend mpi -b 8 -e 8 --json " +
                             json);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto env = nlohmann::json::parse(slurp(json))["system"]["environment"];
  EXPECT_EQ(env["NCCL_DEBUG"], "WARN");
  EXPECT_EQ(env["NCCL_API_KEY"], "<redacted>");
  EXPECT_FALSE(env.contains("HOME_SECRET"));
  EXPECT_FALSE(env.contains("OMPI_MCA_ess")) << env.dump();  // set by MPI_Init of a singleton
  EXPECT_FALSE(env.contains("PMIX_RANK")) << env.dump();
  std::remove(json.c_str());
}

TEST_F(E2E, TopoReadsFixturesAsTextJsonAndDot) {
  const std::string xml = std::string(TEST_DATA_DIR) + "/topology/mpibind-cts1-pascal.xml";
  const Result text = run("topo --xml " + xml);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("GPU0    X       PIX     PIX"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  NIC0: mlx5_0"), std::string::npos);
  const Result json = run("topo --format json --xml " + xml);
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema"], "pipebench.topology/1");
  for (const char* key :
       {"index", "bus_id", "model", "numa", "pcie_gen", "pcie_width", "pcie_gen_max", "pcie_width_max"}) {
    EXPECT_TRUE(j["gpus"][0].contains(key)) << key;
  }
  for (const char* key : {"a", "b", "kind", "class", "pcie_class", "nvlinks", "p2p", "nccl_path", "path_min_gbps"}) {
    EXPECT_TRUE(j["pairs"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["pairs"][0]["class"], "PIX");
  EXPECT_EQ(j["nics"][0]["name"], "mlx5_0");
  EXPECT_TRUE(j["warnings"].is_array());
  const Result dot = run("topo --format dot --xml " + xml);
  ASSERT_EQ(dot.status, 0);
  EXPECT_EQ(dot.out.rfind("digraph pcie {", 0), 0u);
  expect_usage_error("topo --xml /nonexistent/x.xml", "--xml /nonexistent/x.xml: no such file");
  expect_usage_error("topo --format svg", "--format");
  expect_usage_error("topo --xml " + xml + " --nccl-xml " + xml, "--xml and --nccl-xml cannot be combined");
  expect_usage_error("topo --xml " + xml + " --under-load", "--under-load samples this machine's links");
}

TEST_F(E2E, PairsMeasuresEveryOrderedPairBothWays) {
  const std::string json = tmp("pairs.json");
  const Result r = run("pairs --backend mpi --sizes 64K,1M -n 2 --reps 2 --json " + json, kMpirun2);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# unidirectional send/recv at 64K"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# bidirectional send/recv at 1M"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("host ranks have no link classes"), std::string::npos);
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["records"].size(), 6u);  // 2 sizes x (0:1, 1:0 one way + {0,1} both ways)
  int bidir = 0;
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["op"], "pair");
    EXPECT_EQ(rec["wrong"], 0);
    EXPECT_TRUE(rec["class"].is_null());  // host ranks
    bidir += rec["bidirectional"].get<bool>();
  }
  EXPECT_EQ(bidir, 2);
  EXPECT_TRUE(j.contains("link_state_during_run"));
  expect_usage_error("pairs --backend mpi --pairs 0:7", "--pairs: pair 0:7 names a rank out of range", kMpirun2);
  expect_usage_error("pairs --sizes 0", "--sizes");
  std::remove(json.c_str());
}

// A CUDA_VISIBLE_DEVICES that hides every GPU ('abc', '0,0', '-1' on a GPU node) makes auto time host
// memory: one line says so. Empty is the deliberate way to hide GPUs and stays quiet.
TEST_F(E2E, ACudaVisibleDevicesThatHidesEveryGpuIsSaidOnce) {
  const std::string args = " " PIPEBENCH_BIN " bench -b 8 -e 8 -n 1 -w 0 --op all_reduce";
  const Result typo = run_shell("CUDA_VISIBLE_DEVICES=abc" + args);
  EXPECT_EQ(typo.status, 0) << typo.err;
  const std::string line = "pipebench: CUDA_VISIBLE_DEVICES='abc' leaves no GPU visible on rank 0 on host ";
  const auto at = typo.err.find(line);
  EXPECT_NE(at, std::string::npos) << typo.err;
  EXPECT_EQ(typo.err.find(line, at + 1), std::string::npos) << typo.err;  // once
  EXPECT_NE(typo.out.find("backend mpi"), std::string::npos) << typo.out;
  const Result hidden = run_shell("CUDA_VISIBLE_DEVICES=" + args);
  EXPECT_EQ(hidden.status, 0) << hidden.err;
  EXPECT_EQ(hidden.err.find("leaves no GPU visible"), std::string::npos) << hidden.err;
}

TEST_F(E2E, PlanThenBenchThePlanOnFourHostRanks) {
  const std::string plan = tmp("plan.json"), results = tmp("plan_results.json");
  const Result p = run("plan --json " + plan +
                       " -- --num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 "
                       "--max-position-embeddings 64 --micro-batch-size 1 "
                       "--global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
                       "--world-size 4 --vocab-size 1000 --fp16 --lr 1e-4");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_NE(p.out.find("# schedule 1f1b: warm-up microbatches per pipeline rank 1 0; ideal bubble 0.1250"),
            std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("# ignored (no effect on communication): --lr 1e-4"), std::string::npos);
  const Result b =
      run("bench --plan " + plan + " --schedule 1f1b --backend mpi -n 2 --reps 2 --json " + results, kMpirun4);
  ASSERT_EQ(b.status, 0) << b.err << b.out;
  EXPECT_NE(b.out.find("sendrecv both   {0,2}"), std::string::npos) << b.out;  // pipeline neighbours, both ways
  EXPECT_NE(b.out.find("all_reduce      {0,2}"), std::string::npos) << b.out;  // the embedding pair, not a range
  const auto j = nlohmann::json::parse(slurp(results));
  ASSERT_FALSE(j["records"].empty());
  std::set<int> ids, at_once_ids;
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["wrong"], 0) << rec.dump();
    ASSERT_TRUE(rec.contains("plan_ids"));
    // Collectives are timed in place, as Megatron issues them and replay runs them; transfers are not.
    EXPECT_EQ(rec.value("in_place", false), rec["op"] != "pair") << rec.dump();
    // The stages' gradient reductions are timed once alone and once all at once (at_once).
    auto& seen = rec.contains("at_once") ? at_once_ids : ids;
    for (int id : rec["plan_ids"]) EXPECT_TRUE(seen.insert(id).second) << "id " << id << " timed twice";
  }
  EXPECT_FALSE(at_once_ids.empty());
  for (int id : at_once_ids) EXPECT_EQ(ids.count(id), 1u) << "id " << id << " only at once";
  EXPECT_NE(b.out.find("all_reduce x4   {0,1,2,3}"), std::string::npos) << b.out;
  const auto plan_json = nlohmann::json::parse(slurp(plan));
  // Every message of the schedule: collectives by group and size, sends and recvs by the batch they go in.
  EXPECT_EQ(ids.size(), plan_json["schedules"][0]["messages"].size());
  EXPECT_NE(b.out.find("send_forward_recv_backward+send_backward_recv_forward"), std::string::npos) << b.out;
  expect_usage_error("bench --plan /nonexistent/plan.json", "--plan /nonexistent/plan.json: cannot be read");
  expect_usage_error("bench --plan " + results, "is not pipebench.plan/1");
  expect_usage_error("bench --plan " + plan + " --op all_reduce",
                     "--plan takes its sizes, ops and groups from the plan");
  expect_usage_error("bench --plan " + plan + " --schedule zigzag --backend mpi",
                     "--schedule: unknown schedule 'zigzag' (one of: 1f1b, gpipe, interleaved, interleaved-zb, zb-2p, "
                     "zb-h1, zb-h2, zbv)");
  expect_usage_error(
      "plan -- --num-layers 30 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --vocab-size 1000 "
      "--world-size 4",
      "num_layers 30 is not divisible by pipeline size 4");
  expect_usage_error("plan -- --num-layers 8", "Megatron arguments: missing --hidden-size");
  // Without --world-size the GPUs present are the world; a pipeline that does not fit says so.
  expect_usage_error(
      "plan -- --num-layers 9 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 3 --vocab-size 1000 "
      "--world-size 4",
      "world size (4) is not divisible by tensor parallel size (1) times pipeline parallel size (3)");
  std::remove(plan.c_str());
  std::remove(results.c_str());
}

TEST_F(E2E, PredictFromAMeasuredPlanTable) {
  const std::string plan = tmp("pp.json"), table = tmp("pp_table.json"), pred = tmp("pred.json"),
                    traces = tmp("traces");
  ASSERT_EQ(run("plan --json " + plan +
                " -- --num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 "
                "--max-position-embeddings 64 --micro-batch-size 1 "
                "--global-batch-size 8 --pipeline-model-parallel-size 4 --world-size 4 --vocab-size 1000 --bf16")
                .status,
            0);
  const Result b = run("bench --plan " + plan + " --backend mpi -n 2 --reps 2 -w 1 --json " + table, kMpirun4);
  ASSERT_EQ(b.status, 0) << b.err;
  const Result p = run("predict --plan " + plan + " --table " + table + " --fwd-ms-per-layer 0.5 --json " + pred +
                       " --trace " + traces);
  ASSERT_EQ(p.status, 0) << p.err << p.out;
  EXPECT_NE(p.out.find("# verdict: "), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("interleaved v=2"), std::string::npos);
  const auto j = nlohmann::json::parse(slurp(pred));
  EXPECT_EQ(j["schema"], "pipebench.prediction/1");
  ASSERT_GE(j["schedules"].size(), 2u);
  EXPECT_EQ(j["schedules"][0]["ranks"].size(), 4u);
  for (const char* key : {"rank", "compute_ms", "exposed_comm_ms", "idle_ms", "nccl_share", "p2p_bytes"}) {
    EXPECT_TRUE(j["schedules"][0]["ranks"][0].contains(key)) << key;
  }
  EXPECT_TRUE(j["verdict"].contains("deciding_pair"));
  EXPECT_TRUE(nlohmann::json::accept(slurp(traces + "/trace-1f1b-v1.json")));
  expect_usage_error("predict --plan " + plan + " --fwd-ms-per-layer 1", "give exactly one of --table");
  expect_usage_error("predict --plan " + plan + " --zero-comm", "give --fwd-ms-per-layer");
  expect_usage_error("predict --plan " + plan + " --zero-comm --fwd-ms-per-layer -1", "--fwd-ms-per-layer");
  expect_usage_error("predict --plan " + table + " --zero-comm --fwd-ms-per-layer 1", "is not pipebench.plan/1");
  expect_usage_error("predict --plan " + plan + " --table " + plan + " --fwd-ms-per-layer 1",
                     "not a pipebench.results/1 file");
  expect_usage_error("predict --plan " + plan + " --link-gbps 10 --link FOO=1 --fwd-ms-per-layer 1",
                     "--link FOO=1: expected CLASS=GBPS");
  expect_usage_error("predict --plan " + plan + " --link PIX=5 --fwd-ms-per-layer 1",
                     "--link CLASS=GBPS needs --link-gbps");
  // The value is read whole and named before the missing --link-gbps: PHB=abc is no value, PHB=5,5,5 does
  // not parse.
  expect_usage_error("predict --plan " + plan + " --link PHB=abc --fwd-ms-per-layer 1", "--link PHB=abc: expected");
  expect_usage_error("predict --plan " + plan + " --link-gbps 10 --link PHB=5,5,5 --fwd-ms-per-layer 1",
                     "--link PHB=5,5,5: expected");
  const std::string topo = std::string(TEST_DATA_DIR) + "/topology/pipebench-two-switch-levels.xml";
  const std::string topo_json = tmp("topo.json");
  const Result t = run("topo --format json --xml " + topo);
  ASSERT_EQ(t.status, 0) << t.err;
  std::ofstream(topo_json) << t.out;
  const Result classes = run("predict --plan " + plan + " --link-gbps 20 --link NODE=4,10 --topology " + topo_json +
                             " --fwd-ms-per-layer 0.5");
  EXPECT_EQ(classes.status, 0) << classes.err;
  EXPECT_NE(classes.out.find("; NODE 4 GB/s, 10 us"), std::string::npos) << classes.out;
  EXPECT_NE(classes.out.find("assumed (NODE)"), std::string::npos) << classes.out;
  std::remove(topo_json.c_str());
  EXPECT_EQ(std::system(("rm -rf " + plan + " " + table + " " + pred + " " + traces).c_str()), 0);
}

const char* const kTinyModel =
    " -- --num-layers 8 --hidden-size 128 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
    "--micro-batch-size 1 "
    "--global-batch-size 8 --pipeline-model-parallel-size 4 --world-size 4 --vocab-size 1000 --bf16";

TEST_F(E2E, RunPlansPredictsReplaysAndReports) {
  const std::string dir = tmp("runplan");
  const Result r =
      run("run --backend mpi --out " + dir + " -e 1K --point-seconds 0.05 --replay-iterations 2" + kTinyModel);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# Plan: the Megatron-LM arguments given, world 4 (pp 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Prediction (communication measured on this node"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Prediction verdict: "), std::string::npos);
  EXPECT_NE(r.out.find("# Replay: the plan's schedules on these 4 mpi ranks (compute host-sleep"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("   1f1b "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Replay verdict: prediction and replay "), std::string::npos) << r.out;
  // The answer comes last on the console and first in summary.txt: the verdict, and a WARN line above it
  // when the replay contradicts the prediction.
  EXPECT_NE(r.out.find("\n# Verdict: "), std::string::npos) << r.out;
  const std::string summary = slurp(dir + "/summary.txt");
  const bool disagree = r.out.find("# Replay verdict: prediction and replay DISAGREE") != std::string::npos;
  EXPECT_EQ(summary.rfind(disagree ? "# WARN: prediction and replay DISAGREE" : "# Verdict: ", 0), 0u) << summary;
  // The console's report line is the report's own verdict line (PASS, or WARN where the loaded machine's
  // points are unstable: exit 0 either way), and its answer is the report's.
  const auto report = nlohmann::json::parse(slurp(dir + "/report.json"));
  const std::string verdict_line = report.at("verdict_line");
  // On host ranks the link rules are not applied: the line names them after its counts, never a bare PASS.
  EXPECT_TRUE(verdict_line.rfind("PASS on ", 0) == 0 || verdict_line.rfind("WARN on ", 0) == 0) << verdict_line;
  EXPECT_NE(verdict_line.find("; not applied: "), std::string::npos) << verdict_line;
  EXPECT_NE(r.out.find("# Report: " + verdict_line + " (exit 0): " + dir + "/report.html"), std::string::npos) << r.out;
  EXPECT_NE(summary.find("# Report: " + verdict_line + " (exit 0)"), std::string::npos) << summary;
  const std::string md = slurp(dir + "/report.md");
  EXPECT_NE(md.find("> **" + verdict_line + "**"), std::string::npos) << md;
  const std::size_t verdict_at = r.out.rfind("\n# Verdict: ");
  ASSERT_NE(verdict_at, std::string::npos) << r.out;
  const std::string answer = r.out.substr(verdict_at + 12, r.out.find('\n', verdict_at + 1) - verdict_at - 12);
  EXPECT_NE(md.find("Prediction: " + answer.substr(0, answer.find('>'))), std::string::npos) << answer << "\n" << md;
  for (const char* f :
       {"/results.json", "/plan.json", "/plan_results.json", "/prediction.json", "/replay.json", "/report.json"}) {
    EXPECT_TRUE(nlohmann::json::accept(slurp(dir + f))) << f;
  }
  const auto replay = nlohmann::json::parse(slurp(dir + "/replay.json"));
  EXPECT_EQ(replay["schema"], "pipebench.replay/1");
  EXPECT_EQ(replay["world"], 4);
  EXPECT_NE(md.find("## Schedules: predicted vs replayed"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1f1b | "), std::string::npos) << md;
  EXPECT_NE(slurp(dir + "/report.html").find("<html"), std::string::npos);
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST_F(E2E, RunExitStatusFollowsTheReportsRulesAndNoReplaySkipsTheReplay) {
  const std::string dir = tmp("runrules");
  const std::string rules = tmp("rules") + ".json";
  std::ofstream(rules) << R"({"rules": [{"name": "impossible", "metric": "busbw_gbps", "at_least": 1e9}]})";
  const Result r =
      run("run --backend mpi --out " + dir + " -e 1K --point-seconds 0.05 --no-replay --rules " + rules + kTinyModel);
  EXPECT_EQ(r.status, 3) << r.err << r.out;
  EXPECT_EQ(r.out.find("# Replay:"), std::string::npos) << r.out;
  // The report's verdict line: the rules file replaces the defaults, so its one rule is all it counts.
  EXPECT_NE(r.out.find("# Report: FAIL: 1 failed (exit 3): " + dir + "/report.html"), std::string::npos) << r.out;
  EXPECT_FALSE(std::ifstream(dir + "/replay.json").good());
  EXPECT_TRUE(nlohmann::json::accept(slurp(dir + "/report.json")));
  expect_usage_error("run --backend mpi --out " + dir + " --rules " + dir + "/missing.yaml", "--rules");
  expect_usage_error("run --backend mpi --out " + dir + " --baseline " + dir + "/missing", "--baseline");
  EXPECT_EQ(std::system(("rm -rf " + dir + " " + rules).c_str()), 0);
}

TEST_F(E2E, RunWithoutAGpuUsesFourHostRanksAndWritesTheRunFolder) {
  const std::string dir = tmp("run");
  const Result r = run("run --backend mpi --out " + dir + " -e 16K --point-seconds 0.05 --no-plan");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_EQ(r.out.rfind("# no GPU visible (--backend mpi): running on the MPI backend with 4 host ranks", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("# Verdict: every value checked correct"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(dir + "/results.json"));
  EXPECT_EQ(j["records"][0]["nranks"], 4);
  EXPECT_FALSE(slurp(dir + "/results.csv").empty());
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

// run --profile: the job's own compute (per rank, from PyTorch pipelining's profiles of 4 CPU ranks) meets the
// node's measured communication, and the replay sleeps the profile's passes: 1F1B's 8 layers ran about 420 ms,
// where the FLOPs model's 100 TFLOP/s would make the same passes take microseconds.
TEST_F(E2E, RunWithTheJobsProfilePredictsAndReplaysItsOwnCompute) {
  const std::string dir = tmp("runprofile");
  const std::string fixtures = std::string(TEST_DATA_DIR) + "/trace/pipelining/1f1b";
  const std::string model =
      " -- --num-layers 8 --hidden-size 512 --ffn-hidden-size 2048 --num-attention-heads 4 --seq-length 128 "
      "--max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 "
      "--world-size 4 --vocab-size 128 --untie-embeddings-and-output-weights "
      "--num-layers-per-virtual-pipeline-stage 1";
  const Result r = run("run --backend mpi --out " + dir +
                       " -e 1K --point-seconds 0.05 --replay-iterations 1 --profile " + fixtures + model);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# Prediction (communication measured on this node; compute measured from the profile "
                       "(4 files, 1f1b, 1 iteration))"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# 1f1b re-simulated from these terms: iteration "), std::string::npos) << r.out;
  const auto pj = nlohmann::json::parse(slurp(dir + "/prediction.json"));
  const pipebench::Prediction p = pipebench::prediction_from_json(pj, "prediction.json");
  ASSERT_TRUE(p.profile_check);
  // The terms that entered: each rank's compute, none of the profile's links (the node's were measured).
  ASSERT_FALSE(p.measured_terms.empty());
  for (const auto& t : p.measured_terms) EXPECT_GE(t.rank, 0) << t.term;
  const auto one_f_one_b =
      std::find_if(p.schedules.begin(), p.schedules.end(), [](const auto& s) { return s.id.key() == "1f1b"; });
  ASSERT_NE(one_f_one_b, p.schedules.end());
  EXPECT_NEAR(one_f_one_b->iteration_ms, p.profile_check->measured_ms, 0.1 * p.profile_check->measured_ms);
  const auto replay = nlohmann::json::parse(slurp(dir + "/replay.json"));
  bool replayed = false;
  for (const auto& s : replay.at("schedules")) {
    if (s.value("name", "") != "1f1b") continue;
    replayed = true;
    EXPECT_GT(s.at("measured_iteration_ms").get<double>(), 0.8 * p.profile_check->measured_ms) << s.dump();
  }
  EXPECT_TRUE(replayed) << replay.dump();
  // Flags that do not go with it, and a profile of another job: one line each, before anything is measured.
  expect_usage_error("run --backend mpi --out " + dir + " --profile " + fixtures, "--profile: give the job's");
  expect_usage_error("run --backend mpi --out " + dir + " --profile-schedule 1f1b", "--profile-schedule");
  expect_usage_error("run --backend mpi --out " + dir + " --tflops 10 --profile " + fixtures + model, "--tflops");
  expect_usage_error("run --backend mpi --out " + dir + " --no-plan --profile " + fixtures + model, "--no-plan");
  const std::string four = "--pipeline-model-parallel-size 4 --world-size 4";
  std::string two = model;
  two.replace(two.find(four), four.size(), "--pipeline-model-parallel-size 2 --world-size 2");
  expect_usage_error("run --backend mpi --out " + dir + " --profile " + fixtures + two, "the plan's has 2", kMpirun4);
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

TEST_F(E2E, TraceBadFilesGetOneLineAndExitStatusTwo) {
  const std::string fixture = TEST_DATA_DIR "/trace/kineto_allreduce_1gpu.json";
  auto write = [](const std::string& name, const std::string& text) {
    const std::string path = tmp(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  };
  expect_usage_error("trace " + tmp("missing.sqlite"), "no such file");
  expect_usage_error("trace " + write("empty.json", ""), "empty file");
  expect_usage_error("trace " + write("text.txt", "hello world\n"),
                     "neither an Nsight Systems SQLite export nor a JSON trace");
  expect_usage_error("trace " + write("cut.sqlite", "SQLite form"), "truncated SQLite");
  expect_usage_error("trace " + write("notrace.json", "{\"a\": 1}"), "no \"traceEvents\"");
  expect_usage_error("trace " + write("nokernels.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\"}]}"),
                     "without GPU kernel events");
  expect_usage_error("trace " + fixture + " --chrome-trace " + tmp("x.json"),
                     "--chrome-trace: converts Nsight Systems");
  expect_usage_error("trace " + fixture + " --by stage", "--by");
  expect_usage_error("trace " + fixture + " --activity kernel", "--activity: applies to --chrome-trace only");
  expect_usage_error("trace " + fixture + " --prediction p.json", "--prediction: needs --plan");
  expect_usage_error("trace " + fixture + " --plan " + tmp("noplan.json"), "--plan");
  expect_usage_error("trace", "file is required");
  expect_usage_error("trace " + fixture + " --json /nonexistent-dir/t.json",
                     "--json /nonexistent-dir/t.json: cannot be written");
  expect_usage_error("trace " + fixture + " --top -1", "--top");
  expect_usage_error("trace " + fixture + " --plan " + fixture + " --first-rank -3", "--first-rank");
  expect_usage_error("trace " + fixture + " --plan " + fixture + " --iterations 0", "--iterations");
  {
    // Cut off mid-way: the report of what was read, then one line and exit 2.
    const std::string whole = slurp(fixture);
    const Result r = run("trace " + write("cut.json", whole.substr(0, whole.size() * 2 / 3)));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("damaged: JSON ends or breaks at byte"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("# device 0  NVIDIA H200"), std::string::npos) << r.out;
  }
#if PB_HAVE_SQLITE
  {
    pipebench::testing::NsysFixture f(tmp("notnsys.sqlite"));
    f.exec("DROP TABLE StringIds");
  }
  expect_usage_error("trace " + tmp("notnsys.sqlite"), "missing tables: StringIds");
  {
    pipebench::testing::NsysFixture f(tmp("missing_names.sqlite"));
    f.kernel(0, 7, 0, 10, 4242, 1, 1);  // its name id is not in StringIds
  }
  expect_usage_error("trace " + tmp("missing_names.sqlite"), "no kernel row could be read (1 skipped");
  const std::string conv = tmp("conv.sqlite");
  {
    pipebench::testing::NsysFixture f(conv);
    f.kernel(0, 7, 0, 10, f.str("k"), 1, 1);
  }
  expect_usage_error("trace " + conv + " --chrome-trace /nonexistent-dir/t.json",
                     "--chrome-trace /nonexistent-dir/t.json");
  expect_usage_error("trace " + conv + " --chrome-trace " + tmp("t.json") + " --activity kernel,bogus", "'bogus'");
#endif
}

TEST_F(E2E, TraceOfThePyTorchProfilerFixtureWritesTheDocumentedJson) {
  const std::string json = tmp("trace.json");
  const Result r = run("trace " TEST_DATA_DIR "/trace/kineto_allreduce_1gpu.json --by nvtx --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# device 0  NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[comm] nccl:all_reduce"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["schema"], "pipebench.trace/1");
  EXPECT_EQ(j["source"], "kineto-json");
  EXPECT_EQ(j["skipped_rows"], 0);
  ASSERT_EQ(j["devices"].size(), 1u);
  const auto& d = j["devices"][0];
  for (const char* key : {"device", "span_us", "comm_share", "kernels", "collectives"})
    EXPECT_TRUE(d.contains(key)) << key;
  for (const char* key : {"name", "stream", "share", "count", "min_us", "max_us", "mean_us"}) {
    EXPECT_TRUE(d["kernels"][0].contains(key)) << key;
  }
  for (const char* key : {"op", "elements", "bytes", "dtype", "count"})
    EXPECT_TRUE(d["collectives"][0].contains(key)) << key;
  EXPECT_EQ(d["rank"], 0);
}

#if PB_HAVE_SQLITE
TEST_F(E2E, TraceOfAnNsysExportAgainstItsPlanWithAChromeTrace) {
  // A plan for 4 ranks; the profile shows rank 1 of it (device 0) with one iteration of its P2P.
  const std::string plan = tmp("trace_plan.json");
  const Result pr = run(
      "plan --json " + plan +
      " -- --num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 32000");
  ASSERT_EQ(pr.status, 0) << pr.err;
  const auto pj = nlohmann::json::parse(slurp(plan));
  const std::string db = tmp("profile.sqlite");
  {
    pipebench::testing::NsysFixture f(db);
    const auto sr = f.str("ncclDevKernel_SendRecv");
    const auto launch = f.str("cudaLaunchKernel");
    std::int64_t t = 1000, corr = 0;
    for (const auto& s : pj["schedules"]) {
      if (s["name"] != "1f1b") continue;
      for (const auto& m : s["messages"]) {
        if (m["rank"] != 1) continue;
        const std::string op = m["op"];
        for (std::int64_t i = 0; i < m["count"].get<std::int64_t>(); ++i, t += 1000, ++corr) {
          f.nvtx(1, 1, t, t + 100,
                 "nccl:" + op + ", op_id = 1, sizes = [[" + std::to_string(m["elements"].get<std::int64_t>()) + "]]");
          f.runtime(1, 1, t + 10, t + 20, corr, launch);
          f.kernel(0, 3, t + 30, t + 500, sr, corr, 1);
        }
      }
    }
  }
  const std::string chrome = tmp("profile.trace.json");
  const Result r = run("trace " + db + " --plan " + plan + " --first-rank 1 --schedule 1f1b --chrome-trace " + chrome);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("# rank 1 (device 0): 0 mismatching rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iterations in the profile: 1"), std::string::npos) << r.out;
  const auto trace = nlohmann::json::parse(slurp(chrome));
  EXPECT_FALSE(trace["traceEvents"].empty());
}
#endif

}  // namespace
