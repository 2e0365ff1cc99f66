// SPDX-License-Identifier: Apache-2.0
// End to end: pipebench as the harnesses that run nccl-tests see it. The links `make` makes
// (build/bin/all_reduce_perf, ...) under mpirun on the MPI backend, their text against nccl-tests 2.19's
// (tests/fixtures/nccl-tests/all_reduce_perf-2.19.log), NCCL_TESTS_MIN_BW's exit status, and bench's -J,
// --jsonl and --prometheus files read by parsers of their formats.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_pipebench.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

// GPUs hidden: on a GPU node two ranks would otherwise share its GPUs through NCCL (this test is of the
// host ranks' text).
const char* kMpirun2 = "CUDA_VISIBLE_DEVICES= mpirun -np 2 --oversubscribe -x CUDA_VISIBLE_DEVICES";

std::string tmp(const std::string& name) { return "/tmp/pipebench_ntc_" + std::to_string(getpid()) + "_" + name; }

// build/bin/NAME, beside pipebench.
std::string bin(const std::string& name) {
  const std::string pipebench = PIPEBENCH_BIN;
  return pipebench.substr(0, pipebench.find_last_of('/') + 1) + name;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// A line's kind, so that two outputs of the same run shape compare line kind by line kind (the values differ:
// other machine, other times). Runs of device lines and of table rows count once.
std::vector<std::string> shape(const std::vector<std::string>& lines) {
  std::vector<std::string> kinds;
  for (const auto& l : lines) {
    std::string k = l;
    if (l.rfind("# nccl-tests version ", 0) == 0) k = "version";
    if (l.rfind("# nThread ", 0) == 0) k = "settings";
    if (l.rfind("#  Rank ", 0) == 0) k = "device";
    if (!l.empty() && l[0] == ' ') k = "row";
    if (l.rfind("# Avg bus bandwidth    : ", 0) == 0) k = "avg";
    if (kinds.empty() || !(kinds.back() == k && (k == "device" || k == "row"))) kinds.push_back(k);
    if (l.rfind("# Collective test concluded", 0) == 0) break;
  }
  return kinds;
}

class NcclTestsCompat : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
    unsetenv("NCCL_TESTS_MIN_BW");
  }
};

// DCGM's nccl_tests plugin runs `all_reduce_perf -b 8 -e ... -f 2 -g 1`: the same run shape as nccl-tests 2.19's
// log gives the same lines, the device, header and footer lines in nccl-tests' exact format.
TEST_F(NcclTestsCompat, AllReducePerfPrintsWhatNcclTestsPrints) {
  const Result r = run_shell(std::string(kMpirun2) + " " + bin("all_reduce_perf") + " -b 8 -e 128K -f 2 -g 1");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto ours = lines_of(r.out);
  const auto theirs = lines_of(slurp(std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log"));
  EXPECT_EQ(shape(ours), shape(theirs)) << r.out;
  ASSERT_GT(ours.size(), 3u);
  EXPECT_EQ(ours[1], "# Collective test starting: all_reduce_perf");
  EXPECT_EQ(ours[2],
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 131072 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0 unalign: 0");
  int devices = 0, rows = 0;
  double busbw_sum = 0;
  std::string avg_line;
  for (const auto& l : ours) {
    int rank = -1, group = -1, pid = 0, device = 0;
    char host[256], bus[64], model[256];
    if (std::sscanf(l.c_str(), "#  Rank %d Group %d Pid %d on %255s device %d [%63[^]]] %255[^\n]", &rank, &group, &pid,
                    host, &device, bus, model) == 7) {
      EXPECT_EQ(rank, devices++) << l;
      EXPECT_EQ(group, 0) << l;
    }
    std::istringstream in(l);
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    if (!l.empty() && l[0] == ' ' && f.size() == 13) {
      ++rows;
      EXPECT_EQ(f[8], "0") << l;
      busbw_sum += std::stod(f[7]) + std::stod(f[11]);
    }
    if (l.rfind("# Avg bus bandwidth", 0) == 0) avg_line = l;
  }
  EXPECT_EQ(devices, 2);
  EXPECT_EQ(rows, 15);  // 8 B .. 128 KiB by doubling
  double avg = -1;
  ASSERT_EQ(std::sscanf(avg_line.c_str(), "# Avg bus bandwidth    : %lf", &avg), 1) << avg_line;
  EXPECT_NEAR(avg, busbw_sum / 30, 0.01) << r.out;  // over every placement of every row, as printed (2 decimals)
  EXPECT_NE(r.out.find("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n#\n# Collective test concluded: all_reduce_perf\n#\n\n"), std::string::npos) << r.out;
}

// sendrecv_perf as nccl-tests 2.19 runs it (tests/fixtures/nccl-tests/sendrecv_perf-2.19.log, and its own binary
// beside pipebench's on one H200): rows name -o's operation ("sum"), the in-place placement is timed and not
// checked ("    N/A" as its last cell), and "Avg bus bandwidth" averages both placements. pipebench's own bench
// keeps the in-place half out (N/A throughout) and its records say "none".
TEST_F(NcclTestsCompat, SendRecvPerfTimesTheUncheckedInPlaceAsNcclTestsDoes) {
  const Result r = run_shell(std::string(kMpirun2) + " " + bin("sendrecv_perf") + " -b 8 -e 1K -f 4");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto theirs = lines_of(slurp(std::string(TEST_DATA_DIR) + "/nccl-tests/sendrecv_perf-2.19.log"));
  EXPECT_EQ(shape(lines_of(r.out)), shape(theirs)) << r.out;
  int rows = 0;
  double busbw_sum = 0, avg = -1;
  for (const auto& l : lines_of(r.out)) {
    std::istringstream in(l);
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    if (!l.empty() && l[0] == ' ') {
      ASSERT_EQ(f.size(), 13u) << l;
      ++rows;
      EXPECT_EQ(f[3], "sum") << l;
      EXPECT_EQ(f[8], "0") << l;
      EXPECT_GT(std::stod(f[9]), 0) << l;  // the in-place time
      EXPECT_EQ(l.substr(l.size() - 7), "    N/A") << l;
      busbw_sum += std::stod(f[7]) + std::stod(f[11]);
    }
    if (l.rfind("# Avg bus bandwidth", 0) == 0) {
      ASSERT_EQ(std::sscanf(l.c_str(), "# Avg bus bandwidth    : %lf", &avg), 1);
    }
  }
  EXPECT_EQ(rows, 4);  // 8 B .. 512 B by 4 (up to -e 1K)
  EXPECT_NEAR(avg, busbw_sum / 8, 0.01) << r.out;
  const Result own =
      run_shell(std::string(kMpirun2) + " " + PIPEBENCH_BIN " bench --backend mpi --op sendrecv -b 8 -e 8");
  ASSERT_EQ(own.status, 0) << own.err << own.out;
  EXPECT_NE(own.out.find("    none      -1 "), std::string::npos) << own.out;
  EXPECT_NE(own.out.find("      N/A     N/A     N/A     N/A\n"), std::string::npos) << own.out;
}

// nccl-tests' undocumented NCCL_TESTS_MIN_BW: the average against 0.9 x the minimum, exit status 7 below it.
TEST_F(NcclTestsCompat, MinimumBandwidthGivesNcclTestsVerdictAndExitStatus) {
  const std::string cmd = " " + bin("all_reduce_perf") + " -b 1K -e 4K -f 2";
  const Result low = run_shell("NCCL_TESTS_MIN_BW=1000000 " + std::string(kMpirun2) + " -x NCCL_TESTS_MIN_BW" + cmd);
  EXPECT_EQ(low.status, 7) << low.err << low.out;
  EXPECT_NE(low.out.find(" FAILED\n#\n# Collective test concluded"), std::string::npos) << low.out;
  const Result ok = run_shell("NCCL_TESTS_MIN_BW=0 " + std::string(kMpirun2) + " -x NCCL_TESTS_MIN_BW" + cmd);
  EXPECT_EQ(ok.status, 0) << ok.err << ok.out;
  EXPECT_NE(ok.out.find(" OK\n#\n# Collective test concluded"), std::string::npos) << ok.out;
  // bench reads it too; a value that is not a bandwidth is refused in one line.
  const Result bad = run_shell("NCCL_TESTS_MIN_BW=fast " + std::string(kMpirun2) + " -x NCCL_TESTS_MIN_BW " +
                               PIPEBENCH_BIN " bench --backend mpi -b 8 -e 8");
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("pipebench: NCCL_TESTS_MIN_BW 'fast': not a bus bandwidth"), std::string::npos) << bad.err;
}

// Every link `make` makes is its nccl-tests binary: its op, its name in the output.
TEST_F(NcclTestsCompat, EveryNcclTestsNameRunsItsOp) {
  for (const char* name : {"all_reduce_perf", "all_gather_perf", "broadcast_perf", "reduce_scatter_perf", "reduce_perf",
                           "alltoall_perf", "scatter_perf", "gather_perf", "sendrecv_perf"}) {
    const Result r = run_shell(std::string(kMpirun2) + " " + bin(name) + " -b 1K -e 1K -n 2");
    ASSERT_EQ(r.status, 0) << name << "\n" << r.err << r.out;
    EXPECT_NE(r.out.find(std::string("# Collective test starting: ") + name + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("# Collective test concluded: ") + name + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# Out of bounds values : 0 OK\n"), std::string::npos) << name << "\n" << r.out;
  }
  const Result bad = run(std::string("-b 8 -e 8 --bogus"), "");  // the usage of pipebench itself is unchanged
  EXPECT_EQ(bad.status, 2);
  const Result twice = run_shell(bin("all_reduce_perf") + " --op all_gather -b 8 -e 8");
  EXPECT_EQ(twice.status, 2) << twice.err;
}

// bench's -J (nccl-tests' JSON, read back by import), --jsonl (appended, one object per line) and --prometheus
// (checked by the Prometheus client library's own parser of the text format).
TEST_F(NcclTestsCompat, JsonJsonlAndPrometheusFilesHoldEveryRecord) {
  const std::string json = tmp("ar.json"), jsonl = tmp("r.jsonl"), prom = tmp("m.prom"), imported = tmp("imp.json");
  std::ofstream(jsonl) << "{\"earlier\": true}\n";
  const Result r = run("bench --backend mpi --op all_reduce -b 1K -e 16K -f 4 -n 2 --reps 2 -J " + json + " --jsonl " +
                           jsonl + " --prometheus " + prom,
                       kMpirun2);
  ASSERT_EQ(r.status, 0) << r.err << r.out;

  const auto nt = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(nt["version"], 3);
  EXPECT_EQ(nt["results"].size(), 3u);
  EXPECT_EQ(nt["config"]["devices"].size(), 2u);
  EXPECT_EQ(nt["out_of_bounds"]["okay"], "true");
  const Result imp = run("import nccl-tests " + json + " --json " + imported);
  ASSERT_EQ(imp.status, 0) << imp.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(imported))["records"].size(), 6u);

  std::istringstream lines(slurp(jsonl));
  std::vector<nlohmann::json> objects;
  for (std::string l; std::getline(lines, l);) objects.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(objects.size(), 7u);  // the line that was there, then 3 sizes x 2 placements
  EXPECT_TRUE(objects[0]["earlier"].get<bool>());
  for (std::size_t i = 1; i < objects.size(); ++i) {
    for (const char* key : {"host", "gpu", "ranks", "link_class", "busbw_gbps", "size_bytes", "op"}) {
      EXPECT_TRUE(objects[i].contains(key)) << key << " " << objects[i].dump();
    }
    EXPECT_EQ(objects[i]["ranks"], nlohmann::json::array({0, 1}));
    EXPECT_EQ(objects[i]["gpu"], "host memory");
    // Host ranks have no GPU path: its GB/s is null and the share of it absent, not 0.
    EXPECT_TRUE(objects[i]["path_min_gbps"].is_null()) << objects[i].dump();
    EXPECT_FALSE(objects[i].contains("pct_of_link")) << objects[i].dump();
  }

  if (run_shell("/usr/bin/python3 -c 'import prometheus_client'").status != 0) {
    for (const auto& f : {json, jsonl, prom, imported}) std::remove(f.c_str());
    GTEST_SKIP() << "the Prometheus text check needs Debian's python3-prometheus-client (make deps); the JSON and "
                    "JSON Lines checks above ran";
  }
  const std::string parse =
      "/usr/bin/python3 -c 'import sys\n"
      "from prometheus_client.parser import text_string_to_metric_families as f\n"
      "for m in f(open(sys.argv[1]).read()):\n"
      "  print(m.name, m.type, len(m.samples), sorted(m.samples[0].labels))' " +
      prom;
  const Result p = run_shell(parse);
  ASSERT_EQ(p.status, 0) << "the Prometheus parser (Debian python3-prometheus-client; make deps) refused the file:\n"
                         << p.err << slurp(prom);
  const std::string labels =
      "['dtype', 'gpu', 'host', 'in_place', 'link_class', 'nranks', 'op', 'ranks', 'redop', "
      "'size_bytes']";
  EXPECT_EQ(p.out, "pipebench_busbw_gbps gauge 6 " + labels + "\npipebench_time_us gauge 6 " + labels +
                       "\npipebench_wrong_values counter 6 " + labels + "\n");
  for (const auto& f : {json, jsonl, prom, imported}) std::remove(f.c_str());
}

// all_reduce_perf --help is the binary's: its name, nccl-tests' defaults, --op as -o's long name and not the op.
TEST_F(NcclTestsCompat, HelpIsTheBinarysAndOpIsTheReduction) {
  const auto r = run_shell(bin("all_reduce_perf") + " --help");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: all_reduce_perf [OPTIONS]\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("pipebench bench ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  -w,--warmup_iters INT:INT in [0 - 16777216]=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  --reps INT:INT in [1 - 1048576]=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  -a,--average INT:INT in [0 - 3]=1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  -o,--op,--op_type,--redop TEXT=sum"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--op TEXT"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("comma-separated ops"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  -n,--iters INT:INT in [1 - 16777216]=20\n"), std::string::npos) << r.out;  // as bench's
  // --op is read as nccl-tests reads it: the reduction, so an op's name is no reduction.
  const auto op = run_shell(bin("all_reduce_perf") + " --backend mpi -b 8 -e 64 --op all_gather");
  EXPECT_EQ(op.status, 2) << op.err;
  EXPECT_EQ(op.err.rfind("pipebench: -o: unknown reduction 'all_gather'", 0), 0u) << op.err;
  EXPECT_EQ(std::count(op.err.begin(), op.err.end(), '\n'), 1) << op.err;
}

}  // namespace
