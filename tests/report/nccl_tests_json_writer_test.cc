// SPDX-License-Identifier: Apache-2.0
#include "report/nccl_tests_json_writer.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/output_lock.h"
#include "io/nccl_tests_log.h"

namespace pipebench {
namespace {

std::string tmp(const std::string& name) { return "/tmp/pb_ntjson_" + std::to_string(getpid()) + "_" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ResultRecord rec(std::uint64_t size, bool in_place, double busbw, std::int64_t wrong = 0) {
  ResultRecord r;
  r.op = "all_reduce";
  r.dtype = "float";
  r.redop = "sum";
  r.size_bytes = size;
  r.count = size / 4;
  r.in_place = in_place;
  r.time_us = 10.0;
  r.algbw_gbps = busbw / 2;
  r.busbw_gbps = busbw;
  r.wrong = wrong;
  r.ops_per_batch = 20;
  return r;
}

nlohmann::ordered_json head() {
  return {{"version", 3},
          {"start_time", "2026-12-03 10:00:00"},
          {"args", {"pipebench", "bench", "-J", "x.json"}},  // args[0] names no op: experiment_name does
          {"env", nlohmann::ordered_json::array()},
          {"nccl_version", 22803},
          {"config",
           {{"nthreads", 1},
            {"ngpus", 1},
            {"devices",
             {{{"rank", 0},
               {"group", 0},
               {"pid", 7},
               {"hostname", "n1"},
               {"device", 0},
               {"device_hex", "0000:18:00"},
               {"device_info", "NVIDIA H200"}},
              {{"rank", 1},
               {"group", 0},
               {"pid", 8},
               {"hostname", "n1"},
               {"device", 1},
               {"device_hex", "0000:2a:00"},
               {"device_info", "NVIDIA H200"}}}}}}};
}

// The file is nccl-tests' layout (v3 keys in nccl-tests' order, one result object per row with both
// placements, the footer), and pipebench's own reader of nccl-tests -J output reads every row back.
TEST(NcclTestsJsonWriter, WritesNcclTestsV3ThatImportReadsBack) {
  const std::string path = tmp("ar.json");
  {
    NcclTestsJsonWriter w(path, head(), 50.0);
    w.add(rec(8, false, 10));
    w.add(rec(8, true, 20));
    w.add(rec(1024, false, 30, 2));
    auto in = rec(1024, true, 40);
    in.wrong = -1;  // not checked: nwrong null
    w.add(in);
    auto group = rec(1024, true, 999);
    group.split_group = 1;  // a --split group's own record: not an nccl-tests row
    w.add(group);
    w.finish();
  }
  const auto doc = nlohmann::ordered_json::parse(slurp(path));
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"version", "start_time", "args", "env", "nccl_version", "config", "results",
                                            "out_of_bounds", "average_bus_bandwidth", "errors", "end_time"}));
  ASSERT_EQ(doc["results"].size(), 2u);
  const auto& row = doc["results"][1];
  EXPECT_EQ(row["root"], "    -1");  // nccl-tests' "%6i" text
  EXPECT_EQ(row["out_of_place"]["nwrong"], 2.0);
  EXPECT_TRUE(row["in_place"]["nwrong"].is_null());
  EXPECT_EQ(row["actual_iterations"], 20);
  EXPECT_EQ(row["experiment_name"], "all_reduce_perf");
  EXPECT_EQ(doc["out_of_bounds"]["count"], 1);
  EXPECT_EQ(doc["out_of_bounds"]["okay"], "false");
  EXPECT_DOUBLE_EQ(doc["average_bus_bandwidth"]["bandwidth"].get<double>(), 25.0);
  EXPECT_EQ(doc["average_bus_bandwidth"]["okay"], "false");  // 25 < 0.9 x 50

  const NcclTestsFile back = parse_nccl_tests_json(slurp(path), {});
  ASSERT_EQ(back.logs.size(), 1u);
  EXPECT_TRUE(back.logs[0].concluded);
  EXPECT_EQ(back.logs[0].op, "all_reduce");
  EXPECT_DOUBLE_EQ(back.logs[0].avg_busbw_gbps, 25.0);
  ASSERT_EQ(back.logs[0].records.size(), 4u);
  EXPECT_DOUBLE_EQ(back.logs[0].records[3].busbw_gbps, 40.0);
  EXPECT_EQ(back.logs[0].records[2].wrong, 2);
  std::remove(path.c_str());
}

// Ops without an in-place form (sendrecv, alltoall) have "in_place": null; import keeps their rows.
TEST(NcclTestsJsonWriter, OutOfPlaceOnlyOpsKeepTheirRows) {
  const std::string path = tmp("sr.json");
  {
    NcclTestsJsonWriter w(path, head(), std::nullopt);
    for (std::uint64_t size : {8u, 64u}) {
      auto r = rec(size, false, 5);
      r.op = "sendrecv";
      r.redop = "none";
      r.op_has_in_place = false;
      w.add(r);
    }
    // Before finish: a whole document without the footer (what a run that dies leaves).
    const auto part = nlohmann::json::parse(slurp(path));
    EXPECT_EQ(part["results"].size(), 2u);
    EXPECT_FALSE(part.contains("average_bus_bandwidth"));
    w.finish();
  }
  const auto doc = nlohmann::json::parse(slurp(path));
  EXPECT_EQ(doc["average_bus_bandwidth"]["okay"], "unchecked");
  EXPECT_TRUE(doc["results"][0]["in_place"].is_null());
  const NcclTestsFile back = parse_nccl_tests_json(slurp(path), {});
  ASSERT_EQ(back.logs.size(), 1u);
  EXPECT_EQ(back.logs[0].records.size(), 2u);
  std::remove(path.c_str());
}

TEST(NcclTestsJsonWriter, RefusesALinkAsOutput) {
  const std::string target = tmp("target.json"), link = tmp("link.json");
  std::ofstream(target) << "{}";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_THROW(NcclTestsJsonWriter(link, head(), std::nullopt), UsageError);
  EXPECT_EQ(slurp(target), "{}");
  std::remove(link.c_str());
  std::remove(target.c_str());
}

// The file is valid after every row, holds the rows closed so far (a row waiting for its in-place half is
// not written yet), and its final layout is the document's dump(1), as nccl-tests' readers expect.
TEST(NcclTestsJsonWriter, ValidAfterEveryRowAndLaidOutAsDumpOne) {
  const std::string path = tmp("rows.json");
  {
    NcclTestsJsonWriter w(path, head(), std::nullopt);
    EXPECT_EQ(nlohmann::json::parse(slurp(path))["results"].size(), 0u);
    for (std::uint64_t i = 0; i < 300; ++i) {
      w.add(rec(8 * (i + 1), false, 10));
      ASSERT_EQ(nlohmann::json::parse(slurp(path))["results"].size(), i) << "out-of-place half " << i;
      w.add(rec(8 * (i + 1), true, 20));
      const auto doc = nlohmann::json::parse(slurp(path));
      ASSERT_EQ(doc["results"].size(), i + 1);
      ASSERT_EQ(doc["results"][i]["size"], 8 * (i + 1));
      ASSERT_FALSE(doc.contains("end_time"));  // no footer before finish
    }
    w.finish();
  }
  const std::string text = slurp(path);
  const auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(text, doc.dump(1) + "\n");
  EXPECT_EQ(doc["results"].size(), 300u);
  EXPECT_EQ(doc["results"][299]["in_place"]["bus_bw"], 20.0);
  std::remove(path.c_str());
}

// bench -J FILE -N 0 runs until stopped: the writer must not hold its rows (heap growth below the rows'
// text, about 10 MB here), and the bytes it writes grow linearly, not with the square of the rows.
TEST(NcclTestsJsonWriter, HeapAndBytesStayBoundedHoweverManyRows) {
  const std::string path = tmp("endless.json");
  NcclTestsJsonWriter w(path, head(), std::nullopt);
  for (std::uint64_t i = 0; i < 200; ++i) {
    w.add(rec(8 * (i + 1), false, 10));
    w.add(rec(8 * (i + 1), true, 20));
  }
  const std::size_t before = mallinfo2().uordblks;
  constexpr std::uint64_t kRows = 40000;
  for (std::uint64_t i = 200; i < kRows; ++i) {
    w.add(rec(8 * (i + 1), false, 10));
    w.add(rec(8 * (i + 1), true, 20));
  }
  const std::size_t after = mallinfo2().uordblks;
  EXPECT_LT(after, before + (4u << 20)) << "heap grew by " << (after - before) << " bytes over " << kRows << " rows";
  EXPECT_EQ(w.rows(), static_cast<std::int64_t>(kRows));
  w.finish();
  const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
  EXPECT_LE(w.bytes_written(), 6 * size) << "bytes written for a " << size << "-byte file";
  EXPECT_EQ(nlohmann::json::parse(slurp(path))["results"].size(), kRows);
  std::remove(path.c_str());
}

// Failed points' messages: the first kErrorsKept are listed, the rest counted (an endless run of failing
// points must not grow the footer without bound).
TEST(NcclTestsJsonWriter, ErrorsBeyondTheCapAreCounted) {
  const std::string path = tmp("errors.json");
  {
    NcclTestsJsonWriter w(path, head(), std::nullopt);
    const std::size_t n = NcclTestsJsonWriter::kErrorsKept + 5;
    for (std::size_t i = 0; i < n; ++i) {
      auto r = rec(8, false, 0);
      r.op_has_in_place = false;
      r.error = "MPI_Allreduce failed " + std::to_string(i);
      w.add(r);
    }
    w.finish();
  }
  const auto doc = nlohmann::json::parse(slurp(path));
  ASSERT_EQ(doc["errors"].size(), NcclTestsJsonWriter::kErrorsKept + 1);
  EXPECT_EQ(doc["errors"][0], "MPI_Allreduce failed 0");
  EXPECT_EQ(doc["errors"][NcclTestsJsonWriter::kErrorsKept], "5 more errors not listed");
  std::remove(path.c_str());
}

// SIGKILL at any moment of an endless stream of rows leaves a valid document with rows 0..k-1 in order.
TEST(NcclTestsJsonWriter, KillAtAnyMomentLeavesAValidDocument) {
  const std::string path = tmp("killed.json");
  for (int delay_ms : {5, 30, 80}) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      NcclTestsJsonWriter w(path, head(), std::nullopt);
      for (std::uint64_t i = 1;; ++i) {
        w.add(rec(i, false, 10));
        w.add(rec(i, true, 20));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    if (!std::filesystem::exists(path)) continue;         // killed before its constructor wrote the file
    const auto doc = nlohmann::json::parse(slurp(path));  // throws (fails the test) unless valid JSON
    const auto& rows = doc["results"];
    for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i]["size"], i + 1);
    std::remove(path.c_str());
  }
  std::remove(OutputLock::lock_path(path).c_str());  // the killed writer's (it holds no lock)
}

}  // namespace
}  // namespace pipebench
