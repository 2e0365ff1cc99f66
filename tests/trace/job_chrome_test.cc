// SPDX-License-Identifier: Apache-2.0
// The merged Chrome trace of a job: valid JSON, one process per rank named "rank N", every kernel and
// memcpy/memset of each rank's device, on the aligned clock.
#include "trace/job_chrome.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "trace/job_fixture.h"
#include "trace/job_reader.h"

namespace pipebench {
namespace {

TEST(JobChrome, OneProcessPerRankOnTheAlignedClock) {
  const std::string dir = testing::make_temp_dir("jobchrome");
  testing::JobFixture f;
  f.base_time = false;  // aligned by the all_reduce: its ends coincide exactly
  f.write(dir);
  const JobProfile job = read_job({dir}, JobReadOptions{});
  const std::string out = dir + "/merged.json";
  const auto events = write_job_chrome_trace(out, job);
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);  // throws on invalid JSON
  std::map<std::int64_t, std::string> names;
  std::map<std::int64_t, int> complete;
  std::map<std::int64_t, std::vector<double>> all_reduce_ends;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    ++complete[e["pid"]];
    if (e["name"] == "ncclDevKernel_AllReduce_Sum_f32_RING_LL") {
      all_reduce_ends[e["pid"]].push_back(e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  const auto truth = f.events();
  int expected_total = 0;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(names[r], "rank " + std::to_string(r));
    int n = 0;
    for (const auto& e : truth) n += e.rank == r && e.cat != "user_annotation";
    EXPECT_EQ(complete[r], n) << r;
    expected_total += n;
    ASSERT_EQ(all_reduce_ends[r].size(), 3u);
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(all_reduce_ends[r][i], all_reduce_ends[0][i]) << r;
  }
  int x_total = 0;
  for (const auto& [pid, n] : complete) x_total += n;
  EXPECT_EQ(x_total, expected_total);
  EXPECT_EQ(events, static_cast<std::int64_t>(doc["traceEvents"].size()));  // complete and metadata events
  std::filesystem::remove_all(dir);
}

// Older profilers name the device and stream in strings ("GPU 1", "stream 7"): the trace reader takes them,
// and so does the merged trace, with each kernel on its rank and stream.
TEST(JobChrome, StringDeviceAndStreamIdsOfOlderProfilersShowEveryKernel) {
  const std::string dir = testing::make_temp_dir("jobchrome_strings");
  testing::JobFixture f;
  f.string_ids = true;
  f.write(dir);
  const JobProfile job = read_job({dir}, JobReadOptions{});
  const std::string out = dir + "/merged.json";
  (void)write_job_chrome_trace(out, job);
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  std::map<std::int64_t, int> complete;
  std::map<std::int64_t, std::set<std::int64_t>> streams;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete[e["pid"]];
    streams[e["pid"]].insert(e["tid"].get<std::int64_t>());
  }
  const auto truth = f.events();
  for (int r = 0; r < 4; ++r) {
    int n = 0;
    for (const auto& e : truth) n += e.rank == r && e.cat != "user_annotation";
    EXPECT_EQ(complete[r], n) << r;
    EXPECT_EQ(streams[r], (std::set<std::int64_t>{7, 20, 21})) << r;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pipebench
