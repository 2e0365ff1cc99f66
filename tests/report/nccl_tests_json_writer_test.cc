// SPDX-License-Identifier: Apache-2.0
#include "report/nccl_tests_json_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/error.h"
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

}  // namespace
}  // namespace pipebench
