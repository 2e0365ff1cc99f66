// SPDX-License-Identifier: Apache-2.0
// nccl-tests output read back: every layout, every op, JSON, damaged and truncated logs.
#include "io/nccl_tests_log.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/nccl_tests_parts.h"
#include "io/results_io.h"

namespace pipebench {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/nccl-tests/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NcclTestsFile parse_fixture(const std::string& name, NcclTestsHints hints = {}) {
  hints.file_name = name;
  return parse_nccl_tests(fixture(name), hints);
}

// nccl-tests' definitions (shared/reference/nccl-tests.md §2.2): algbw = size / time (GB/s = 1e9 B/s),
// busbw = algbw x the op's factor for n ranks.
double bus_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv" || op == "hypercube") return 1.0;
  return static_cast<double>(n - 1) / n;
}

// The printed figures have 2 decimals or 3-4 significant digits: compare within what printing kept.
void expect_consistent(const ResultRecord& r) {
  if (r.size_bytes == 0 || r.op == "hypercube") return;
  const double algbw = static_cast<double>(r.size_bytes) / (r.time_us * 1e3);
  EXPECT_NEAR(r.algbw_gbps, algbw, 0.006 + algbw * 0.002) << r.op << " " << r.size_bytes;
  EXPECT_NEAR(r.busbw_gbps, r.algbw_gbps * bus_factor(r.op, r.nranks), 0.011 + r.busbw_gbps * 0.002)
      << r.op << " " << r.size_bytes;
}

TEST(NcclTestsLog, Text219AllReduceGivesEveryRowBothPlacementsAndTheMachine) {
  const NcclTestsFile f = parse_fixture("all_reduce_perf-2.19.log");
  ASSERT_EQ(f.logs.size(), 1u);
  const NcclTestsLog& log = f.logs[0];
  EXPECT_EQ(log.program, "all_reduce_perf");
  EXPECT_EQ(log.op, "all_reduce");
  EXPECT_EQ(log.version, "2.19.6");
  EXPECT_EQ(log.nccl_version, "2.28.3");
  EXPECT_EQ(log.nranks, 8);
  EXPECT_EQ(log.ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(log.iters, 20);
  EXPECT_EQ(log.warmup, 1);
  EXPECT_TRUE(log.concluded);
  ASSERT_EQ(log.devices.size(), 8u);
  EXPECT_EQ(log.devices[3].host, "h200-node1");
  EXPECT_EQ(log.devices[3].bus_id, "0000:5d:00");
  EXPECT_EQ(log.devices[3].model, "NVIDIA H200");
  ASSERT_EQ(log.records.size(), 28u);  // 14 sizes (8 B .. 512 MiB by 4), out-of-place and in-place
  EXPECT_FALSE(log.records[0].in_place);
  EXPECT_TRUE(log.records[1].in_place);
  const ResultRecord& last = log.records[26];
  EXPECT_EQ(last.size_bytes, 536870912u);
  EXPECT_EQ(last.count, 134217728u);
  EXPECT_DOUBLE_EQ(last.time_us, 2613.76);
  EXPECT_DOUBLE_EQ(last.busbw_gbps, 359.45);
  EXPECT_EQ(last.redop, "sum");
  EXPECT_EQ(last.root, -1);
  EXPECT_EQ(last.wrong, 0);
  double sum = 0;
  for (const auto& r : log.records) {
    expect_consistent(r);
    sum += r.busbw_gbps;
  }
  // The footer's average is over every row and both placements (nccl-tests.md §3.5).
  EXPECT_NEAR(sum / static_cast<double>(log.records.size()), log.avg_busbw_gbps, 0.01);
  EXPECT_TRUE(f.skipped.empty());
}

TEST(NcclTestsLog, EveryOpOfAppendedLogsIsItsOwnTest) {
  const NcclTestsFile f = parse_fixture("other_ops-2.19.log");
  std::vector<std::string> ops;
  for (const auto& log : f.logs) {
    ops.push_back(log.op);
    EXPECT_EQ(log.records.size(), 10u) << log.op;
    for (const auto& r : log.records) expect_consistent(r);
  }
  EXPECT_EQ(ops, (std::vector<std::string>{"all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "gather",
                                           "scatter", "hypercube"}));
  // alltoall's in-place data is not checked by nccl-tests: N/A, kept as "not checked".
  EXPECT_EQ(f.logs[4].records[1].wrong, -1);
  EXPECT_EQ(f.logs[4].records[0].wrong, 0);
  // broadcast was run with -I 1 -S 1: per-iteration columns and a timestamp after each row.
  EXPECT_EQ(f.logs[2].records[2].root, 0);
  EXPECT_DOUBLE_EQ(f.logs[2].records[2].time_us, 11.90);
  EXPECT_TRUE(f.skipped.empty());
}

TEST(NcclTestsLog, Text213WithoutOpNameTakesItFromTheFileAndPlacesMpiRanks) {
  const NcclTestsFile f = parse_fixture("all_gather_perf-2.13.log");
  ASSERT_EQ(f.logs.size(), 1u);
  const NcclTestsLog& log = f.logs[0];
  EXPECT_EQ(log.program, "");
  EXPECT_EQ(log.op, "all_gather");
  EXPECT_EQ(log.nranks, 16);
  EXPECT_EQ(log.nccl_version, "2.13.4");  // from NCCL's own INFO line
  EXPECT_EQ(log.devices[9].host, "dgx02");
  EXPECT_EQ(log.devices[9].bus_id, "0x0f");
  ASSERT_EQ(log.records.size(), 50u);
  EXPECT_EQ(log.records[0].size_bytes, 0u);  // 16 ranks round 8 B down to 0 (16-byte alignment)
  for (const auto& r : log.records) expect_consistent(r);
  EXPECT_EQ(f.skipped.at("NCCL debug lines (NCCL_DEBUG output, not data)"), 3);
  // The same text under a name that says nothing, with --op.
  NcclTestsHints hints;
  EXPECT_TRUE(parse_nccl_tests(fixture("all_gather_perf-2.13.log"), hints).logs[0].records.empty());
  hints.op = "all_gather";
  EXPECT_EQ(parse_nccl_tests(fixture("all_gather_perf-2.13.log"), hints).logs[0].records.size(), 50u);
  hints.op = "allgatherv";
  EXPECT_THROW((void)parse_nccl_tests(fixture("all_gather_perf-2.13.log"), hints), UsageError);
}

TEST(NcclTestsLog, Layout2021HasPerOpColumnsAndAnErrorColumn) {
  const NcclTestsFile f = parse_fixture("reduce_perf-2021.log");
  ASSERT_EQ(f.logs.size(), 1u);
  const NcclTestsLog& log = f.logs[0];
  EXPECT_EQ(log.op, "reduce");
  EXPECT_EQ(log.nranks, 4);
  EXPECT_EQ(log.devices[2].group, 0);
  EXPECT_EQ(log.devices[2].model, "Tesla V100-SXM2-32GB");
  ASSERT_EQ(log.records.size(), 16u);
  EXPECT_EQ(log.records[0].root, 0);
  EXPECT_EQ(log.records[0].redop, "sum");
  EXPECT_EQ(log.records[0].wrong, -1);  // "error" is a deviation, not a count
  for (const auto& r : log.records) expect_consistent(r);
  // The same era's all_gather and sendrecv print neither redop nor root (src/all_gather.cu of 2021).
  const std::string sendrecv =
      "#   Rank  0 Pid   9876 on    v100box device  0 [0x1a] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid   9876 on    v100box device  1 [0x1b] Tesla V100-SXM2-32GB\n"
      "#       size         count      type     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "     1048576        262144     float    20.97   50.00   50.00  0e+00    20.97   50.00   50.00    N/A\n";
  NcclTestsHints hints;
  hints.file_name = "sendrecv_perf.txt";
  const NcclTestsFile f2 = parse_nccl_tests(sendrecv, hints);
  ASSERT_EQ(f2.logs.at(0).records.size(), 2u);
  EXPECT_EQ(f2.logs[0].records[0].redop, "none");
  EXPECT_EQ(f2.logs[0].records[0].root, -1);
  EXPECT_EQ(f2.logs[0].records[0].nranks, 2);
  expect_consistent(f2.logs[0].records[0]);
}

TEST(NcclTestsLog, JsonMatchesTheTextOfTheSameRunAndKeepsPerIterationStatistics) {
  const NcclTestsFile text = parse_fixture("all_reduce_perf-2.19.log");
  const NcclTestsFile json = parse_fixture("all_reduce_perf-2.19.json");
  ASSERT_EQ(json.logs.size(), 1u);
  const NcclTestsLog& log = json.logs[0];
  EXPECT_EQ(log.format, "json v3");
  EXPECT_EQ(log.program, "all_reduce_perf");
  EXPECT_EQ(log.op, "all_reduce");
  EXPECT_EQ(log.nranks, 8);  // one device listed per process, nGpus 8 each
  EXPECT_EQ(log.nccl_version, "2.28.3");
  ASSERT_EQ(log.records.size(), text.logs[0].records.size());
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    EXPECT_EQ(log.records[i].size_bytes, text.logs[0].records[i].size_bytes);
    EXPECT_NEAR(log.records[i].time_us, text.logs[0].records[i].time_us, 0.006 + log.records[i].time_us * 1e-3);
    EXPECT_EQ(log.records[i].stats.samples, 20);
    EXPECT_LE(log.records[i].stats.min_us, log.records[i].stats.median_us);
  }
  EXPECT_TRUE(json.skipped.empty());
}

TEST(NcclTestsLog, TruncatedJsonKeepsTheCompleteResults) {
  const NcclTestsFile f = parse_fixture("all_reduce_perf-truncated.json");
  ASSERT_EQ(f.logs.size(), 1u);
  EXPECT_EQ(f.logs[0].records.size(), 10u);  // 5 whole results; the 6th was cut
  EXPECT_FALSE(f.logs[0].concluded);
  EXPECT_EQ(f.skipped.size(), 1u);
}

TEST(NcclTestsLog, DamagedTextKeepsWholeRowsAndCountsEachKindOfSkip) {
  const NcclTestsFile f = parse_fixture("all_reduce_perf-damaged.log");
  ASSERT_EQ(f.logs.size(), 1u);
  EXPECT_EQ(f.logs[0].records.size(), 14u);  // rows 0-2 and 5-8 of 10 printed
  EXPECT_FALSE(f.logs[0].concluded);
  EXPECT_EQ(f.skipped.at("table rows cut short"), 1);
  EXPECT_EQ(f.skipped.at("table rows with a value that is not a number"), 1);
  EXPECT_EQ(f.skipped.at("table rows with extra text (output of another process mixed in?)"), 1);
}

// The log's lines, with `rows` (lines of another log, or of itself) inserted after its table row `after`
// (0-based; -1: after the last row).
std::string with_rows_after(const std::string& log, int after, const std::vector<std::string>& rows) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  int last_row = -1;
  for (std::string l; std::getline(in, l);) {
    lines.push_back(l);
    if (!l.empty() && l[0] != '#') last_row = static_cast<int>(lines.size()) - 1;
  }
  int seen = -1, at = last_row;
  for (int i = 0; i < static_cast<int>(lines.size()) && after >= 0; ++i) {
    if (!lines[i].empty() && lines[i][0] != '#' && ++seen == after) at = i;
  }
  std::string out;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    out += lines[i] + "\n";
    if (i == at)
      for (const auto& r : rows) out += r + "\n";
  }
  return out;
}

std::vector<std::string> table_rows(const std::string& log, std::size_t count) {
  std::istringstream in(log);
  std::vector<std::string> rows;
  for (std::string l; std::getline(in, l) && rows.size() < count;) {
    if (!l.empty() && l[0] != '#') rows.push_back(l);
  }
  return rows;
}

// A run that never printed its footer, its rows caught in another run's log, cannot be told from that
// run's: refused as a second footer is, never imported under the first run's op.
TEST(NcclTestsLog, RowsOfAnotherRunInsideATestAreRefused) {
  const std::string all_reduce = fixture("all_reduce_perf-2.19.log");
  const std::string injected = with_rows_after(all_reduce, 3, table_rows(fixture("sendrecv_perf-2.19.log"), 5));
  const NcclTestsFile a = parse_nccl_tests(injected, {});
  EXPECT_NE(a.refused.find("size 2048 in the rows of float sum root -1, whose sizes have ended"), std::string::npos)
      << a.refused;
  EXPECT_NE(a.refused.find("two nccl-tests runs are interleaved"), std::string::npos) << a.refused;
  EXPECT_EQ(a.refused.rfind("line ", 0), 0u) << a.refused;
  const NcclTestsFile again = parse_nccl_tests(with_rows_after(all_reduce, -1, table_rows(all_reduce, 3)), {});
  EXPECT_NE(again.refused.find("the footer after 3 of the 14 sizes of a repeat (-N)"), std::string::npos)
      << again.refused;
  nlohmann::json j = nlohmann::json::parse(fixture("all_reduce_perf-2.19.json"));
  j["results"].push_back(j["results"][0]);
  const NcclTestsFile json = parse_nccl_tests(j.dump(), {});
  EXPECT_NE(json.refused.find("the footer after 1 of the 14 sizes of a repeat (-N)"), std::string::npos)
      << json.refused;
  // The same rows again, whole (-N 2), are one run's.
  const NcclTestsFile cycles = parse_nccl_tests(with_rows_after(all_reduce, -1, table_rows(all_reduce, 14)), {});
  EXPECT_TRUE(cycles.refused.empty()) << cycles.refused;
  ASSERT_EQ(cycles.logs.size(), 1u);
  EXPECT_EQ(cycles.logs[0].records.size(), 56u);
  j["results"].erase(j["results"].size() - 1);
  for (std::size_t i = 0; i < 14; ++i) j["results"].push_back(j["results"][i]);
  EXPECT_TRUE(parse_nccl_tests(j.dump(), {}).refused.empty());
}

TEST(NcclTestsLog, SplitGroupsGiveTheGroupOfRankZero) {
  // NCCL_TESTS_SPLIT="MOD 2" on 4 processes (-g 1): colours 0,1,0,1; the rows are per group of 2.
  std::string text =
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < 4; ++r) {
    text += "#  Rank  " + std::to_string(r) + " Group  " + std::to_string(r % 2) + " Pid  10" + std::to_string(r) +
            " on host device  " + std::to_string(r) + " [0000:0" + std::to_string(r) + ":00] NVIDIA H200\n";
  }
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n"
      "        1024           256     float     sum      -1    10.24    0.10    0.10       0    10.24    0.10    0.10"
      "       0\n";
  NcclTestsHints hints;
  hints.op = "all_reduce";
  const NcclTestsFile f = parse_nccl_tests(text, hints);
  ASSERT_EQ(f.logs.size(), 1u);
  EXPECT_EQ(f.logs[0].groups, 2);
  EXPECT_EQ(f.logs[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(f.logs[0].records.at(0).nranks, 2);
}

TEST(NcclTestsLog, CputimeColumnsAndJsonCpuTimeAreRead) {
  // -C 1 renames both time columns to cputime (writeResultHeader); -J writes "cpu_time".
  const std::string text =
      "#  Rank  0 Group  0 Pid   1191 on         vm device  0 [0000:00:06] NVIDIA H200\n"
      "#  Rank  1 Group  0 Pid   1191 on         vm device  1 [0000:00:07] NVIDIA H200\n"
      "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  cputime   algbw   busbw "
      " #wrong\n"
      "     1048576        262144     float    none      -1     8.00  131.07  131.07     N/A     8.00  131.07  131.07"
      "     N/A\n";
  NcclTestsHints hints;
  hints.file_name = "sendrecv_perf.log";
  const NcclTestsFile f = parse_nccl_tests(text, hints);
  ASSERT_EQ(f.logs.at(0).records.size(), 2u);
  EXPECT_DOUBLE_EQ(f.logs[0].records[0].time_us, 8.0);
  EXPECT_EQ(f.logs[0].records[0].wrong, -1);
  EXPECT_EQ(f.logs[0].nranks, 2);
  const std::string json =
      R"({"version": 1, "args": ["/opt/nccl-tests/build/broadcast_perf"], "config": {"nthreads": 1, "ngpus": 2,
          "devices": [{"rank": 0, "group": 0, "pid": 7, "hostname": "vm", "device": 0, "device_hex": "0000:00:06",
          "device_info": "NVIDIA H200"}]},
          "results": [{"size": 1024, "count": 256, "type": "float", "redop": "none", "root": "     0",
            "out_of_place": {"cpu_time": 4.5, "alg_bw": 0.23, "bus_bw": 0.23, "nwrong": null},
            "in_place": {"cpu_time": 4.4, "alg_bw": 0.23, "bus_bw": 0.23, "nwrong": 0}},
            {"size": 2048, "count": 512, "type": "float", "redop": "none", "root": "     0",
            "out_of_place": {"cpu_time": "nan", "alg_bw": 0.45, "bus_bw": 0.45, "nwrong": 0},
            "in_place": {"cpu_time": 4.4, "alg_bw": 0.46, "bus_bw": 0.46, "nwrong": 0}}]})";
  const NcclTestsFile j = parse_nccl_tests(json, {});
  ASSERT_EQ(j.logs.at(0).records.size(), 2u);  // the row with "nan" is left out
  EXPECT_EQ(j.logs[0].op, "broadcast");
  EXPECT_EQ(j.logs[0].nranks, 2);
  EXPECT_EQ(j.logs[0].records[0].root, 0);
  EXPECT_DOUBLE_EQ(j.logs[0].records[1].time_us, 4.4);
  EXPECT_EQ(j.skipped.at("results with a time that is not a number"), 1);
}

TEST(NcclTestsLog, ALogWithoutItsHeadIsReadInTheLayoutSince213) {
  // The last rows of the 2.19 fixture only, as a terminal scroll-back gives them.
  std::string text =
      "        8192          2048     float     sum      -1    21.80    0.38    0.66       0    21.96    0.37"
      "    0.65       0\n"
      "       32768          8192     float     sum      -1    21.95    1.49    2.61       0\n";
  NcclTestsHints hints;
  hints.op = "all_reduce";
  hints.nranks = 8;
  const NcclTestsFile f = parse_nccl_tests(text, hints);
  ASSERT_EQ(f.logs.at(0).records.size(), 2u);
  EXPECT_DOUBLE_EQ(f.logs[0].records[1].time_us, 21.96);
  EXPECT_EQ(f.skipped.at("table rows cut short"), 1);
  EXPECT_EQ(parse_nccl_tests("   8   2   float   21.80\n", hints).skipped.at("table rows before any column header"), 1);
}

TEST(NcclTestsLog, WithoutDeviceLinesTheRankCountComesFromTheHint) {
  const std::string text =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong\n"
      "        1024           256     float     sum      -1    10.24    0.10    0.18       0    10.24    0.10    0.18"
      "       0\n";
  NcclTestsHints hints;
  hints.op = "all_reduce";
  NcclTestsFile f = parse_nccl_tests(text, hints);
  EXPECT_TRUE(f.logs.at(0).records.empty());
  EXPECT_EQ(f.skipped.at("table rows of a test without device lines (give --nranks)"), 1);
  hints.nranks = 8;
  f = parse_nccl_tests(text, hints);
  ASSERT_EQ(f.logs.at(0).records.size(), 2u);
  EXPECT_EQ(f.logs[0].records[0].nranks, 8);
}

TEST(NcclTestsLog, NotALogGivesNothingAndNeverThrows) {
  const std::vector<std::string> texts = {
      "", "hello\nworld\n", "{\"a\": 1}", "{", "# size count type\n1 2 3\n", std::string("\0\xff", 2)};
  for (const auto& text : texts) {
    const NcclTestsFile f = parse_nccl_tests(text, {});
    std::size_t records = 0;
    for (const auto& log : f.logs) records += log.records.size();
    EXPECT_EQ(records, 0u) << text;
  }
}

TEST(NcclTestsLog, OpNamesAndVersionCodes) {
  EXPECT_EQ(nccl_tests_op("./build/all_reduce_perf_mpi"), "all_reduce");
  EXPECT_EQ(nccl_tests_op("reduce_scatter_perf"), "reduce_scatter");
  EXPECT_EQ(nccl_tests_op("alltoallv_perf"), "alltoallv");
  EXPECT_EQ(nccl_tests_op("AllGather.log"), "all_gather");
  EXPECT_EQ(nccl_tests_op("results.log"), "");
  // A log's own binary name is matched whole: a garbled one names no op, not the op inside it.
  EXPECT_EQ(nccl_tests_log_op("./build/all_reduce_perf_mpi"), "all_reduce");
  EXPECT_EQ(nccl_tests_log_op("reduce_scatter_perf"), "reduce_scatter");
  EXPECT_EQ(nccl_tests_log_op("alltoallv"), "alltoallv");
  EXPECT_EQ(nccl_tests_log_op("all\x1b[0m_reduce_perf"), "");
  EXPECT_EQ(nccl_tests_log_op("my_all_reduce_perf"), "");
  EXPECT_EQ(nccl_tests_log_op("reduce_perf2"), "");
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");
  EXPECT_EQ(nccl_version_text(0), "");
}

TEST(NcclTestsLog, ResultsFileReadsBackAsPipebenchResults) {
  std::vector<NcclTestsImport> imports = {{"a.log", parse_fixture("all_reduce_perf-2.19.log")},
                                          {"b.log", parse_fixture("all_gather_perf-2.13.log")}};
  const nlohmann::json doc = nccl_tests_results(imports, "2026-12-03T00:00:00Z");
  const ResultSet rs = results_from_json(doc, "imported");
  EXPECT_EQ(rs.source, "nccl-tests");
  EXPECT_EQ(rs.records.size(), 78u);
  EXPECT_EQ(rs.system.hosts, (std::vector<std::string>{"h200-node1", "dgx01", "dgx02"}));
  EXPECT_EQ(rs.system.gpu_models, (std::vector<std::string>{"NVIDIA H200", "NVIDIA A100-SXM4-80GB"}));
  ASSERT_EQ(rs.system.devices.size(), 8u);  // the first test's ranks
  EXPECT_EQ(rs.system.devices[3].bus_id, "0000:5d:00.0");
  EXPECT_EQ(rs.system.versions.at("nccl"), "2.28.3");  // the first test's, as its devices
  EXPECT_EQ(rs.records[0].op, "all_reduce");
  EXPECT_EQ(rs.records[30].op, "all_gather");
  EXPECT_EQ(rs.records[30].nranks, 16);
  EXPECT_EQ(doc.at("imported_from").size(), 2u);
}

// report and predict --table take a log as typed results with no JSON between: the same values as its
// import's document, read back (records field by field through their one writer).
TEST(NcclTestsLog, TypedResultsOfALogAreWhatItsResultsDocumentReadsBackAs) {
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TEST_DATA_DIR) + "/nccl-tests")) {
    const std::string name = entry.path().filename().string();
    const std::string text = fixture(name);
    const auto typed = nccl_tests_result_set_of(name, text);
    if (!typed) continue;
    ++logs;
    const ResultSet back = results_from_json(nccl_tests_results({{name, parse_fixture(name)}}, ""), name);
    EXPECT_EQ(typed->source, back.source) << name;
    EXPECT_EQ(typed->tool_version, back.tool_version) << name;
    EXPECT_EQ(typed->created_utc, back.created_utc) << name;
    EXPECT_EQ(typed->system.hosts, back.system.hosts) << name;
    EXPECT_EQ(typed->system.gpu_models, back.system.gpu_models) << name;
    EXPECT_EQ(typed->system.versions, back.system.versions) << name;
    EXPECT_EQ(typed->system.processes, back.system.processes) << name;
    EXPECT_EQ(typed->config, back.config) << name;
    ASSERT_EQ(typed->system.devices.size(), back.system.devices.size()) << name;
    for (std::size_t i = 0; i < back.system.devices.size(); ++i) {
      EXPECT_EQ(typed->system.devices[i].rank, back.system.devices[i].rank) << name;
      EXPECT_EQ(typed->system.devices[i].host, back.system.devices[i].host) << name;
      EXPECT_EQ(typed->system.devices[i].bus_id, back.system.devices[i].bus_id) << name;
      EXPECT_EQ(typed->system.devices[i].group, back.system.devices[i].group) << name;
    }
    ASSERT_EQ(typed->records.size(), back.records.size()) << name;
    for (std::size_t i = 0; i < back.records.size(); ++i) {
      EXPECT_EQ(record_to_json(typed->records[i]), record_to_json(back.records[i])) << name << " record " << i;
      EXPECT_EQ(typed->records[i].bidirectional, back.records[i].bidirectional) << name << " record " << i;
    }
  }
  EXPECT_GE(logs, 6);  // the fixtures that are logs with rows
}

TEST(NcclTestsLog, JsonEnvironmentIsNeverCopied) {
  std::vector<NcclTestsImport> imports = {{"a.json", parse_fixture("all_reduce_perf-2.19.json")}};
  const std::string out = nccl_tests_results(imports, "t").dump();
  EXPECT_EQ(out.find("hf_secret"), std::string::npos);
  EXPECT_EQ(out.find("HOME="), std::string::npos);
}

// A file read from disk gives what its text gives; a log with a 512 MiB line (a sparse file: 8 KB on disk)
// is read in a child whose address space cannot hold that line: the line is skipped and counted, every
// row imported: neither the whole file nor the line is held.
TEST(NcclTestsLog, FileIsReadLineByLineInMemoryIndependentOfItsSize) {
  const std::string dir = ::testing::TempDir() + "nccl_tests_lines_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string text = fixture("all_reduce_perf-2.19.log");
  const std::string plain = dir + "/all_reduce_perf.log";
  std::ofstream(plain) << text;
  NcclTestsHints hints;
  hints.file_name = "all_reduce_perf.log";
  const NcclTestsFile whole = parse_nccl_tests(text, hints);
  const NcclTestsFile read = read_nccl_tests_file("FILE", plain, hints);
  ASSERT_EQ(read.logs.size(), whole.logs.size());
  EXPECT_EQ(read.logs[0].records.size(), whole.logs[0].records.size());
  EXPECT_EQ(read.skipped, whole.skipped);
  const std::size_t cut = text.find("\n", text.rfind("#  Rank")) + 1;  // after the device lines
  const std::string sparse = dir + "/sparse.log";
  {
    std::ofstream out(sparse, std::ios::binary);
    out << text.substr(0, cut);
  }
  const auto at = static_cast<off_t>(cut) + (off_t{512} << 20);
  ASSERT_EQ(::truncate(sparse.c_str(), at), 0);
  {
    std::ofstream out(sparse, std::ios::binary | std::ios::app);
    out << "\n" << text.substr(cut);
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The address space now, and 256 MiB more: not enough for a copy of the 512 MiB line.
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit =
        static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{256} << 20);
    const struct rlimit rl = {limit, limit};
    ::setrlimit(RLIMIT_AS, &rl);
    try {
      const NcclTestsFile f = read_nccl_tests_file("FILE", sparse, hints);
      const bool ok = f.logs.size() == 1 && f.logs[0].records.size() == whole.logs[0].records.size() &&
                      f.skipped.at("lines longer than 64 KiB (not nccl-tests output)") == 1;
      ::_exit(ok ? 0 : 3);
    } catch (...) {
      ::_exit(4);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
