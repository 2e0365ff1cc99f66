// SPDX-License-Identifier: Apache-2.0
#include "report/results_json.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/output_lock.h"

namespace pipebench {
namespace {

std::string temp_path(const char* name) { return "/tmp/pipebench_test_" + std::to_string(getpid()) + "_" + name; }

ResultsHeader header_of_version(const std::string& tool_version) {
  ResultsHeader h;
  h.tool_version = tool_version;
  return h;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ResultsJson, FileIsValidAfterEveryRecord) {
  const std::string path = temp_path("results.json");
  ResultsJson out(path, header_of_version("x"));
  EXPECT_EQ(read_json(path)["records"].size(), 0u);
  ResultRecord r;
  r.op = "all_reduce";
  r.size_bytes = 1024;
  r.wrong = 0;
  r.stats.samples = 10;
  out.add(r);
  r.in_place = true;
  r.wrong = -1;
  out.add(r);
  const auto j = read_json(path);
  EXPECT_EQ(j["schema"], "pipebench.results/1");
  ASSERT_EQ(j["records"].size(), 2u);
  EXPECT_EQ(j["records"][0]["wrong"], 0);
  EXPECT_TRUE(j["records"][1]["wrong"].is_null());  // not checked
  EXPECT_EQ(j["records"][1]["in_place"], true);
  EXPECT_EQ(j["records"][0]["stats"]["samples"], 10);
  EXPECT_EQ(access((path + ".tmp").c_str(), F_OK), -1);  // the temporary was renamed away
  std::remove(path.c_str());
}

ResultRecord numbered(int i, std::size_t error_bytes = 0) {
  ResultRecord r;
  r.op = "all_reduce";
  r.size_bytes = i;
  r.error = std::string(error_bytes, 'e');
  return r;
}

std::int64_t file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return static_cast<std::int64_t>(in.tellg());
}

// Records of varied sizes cross pages and run out of the reserve: the file parses after every one and
// holds exactly the records so far, in order.
TEST(ResultsJson, ValidWithEveryRecordAcrossPagesAndReserves) {
  const std::string path = temp_path("pages.json");
  ResultsJson out(path, header_of_version("x"));  // "tool_version" sorts after "records"
  for (int i = 0; i < 250; ++i) {
    out.add(numbered(i, static_cast<std::size_t>((i * 37) % 500)));
    const auto j = read_json(path);
    ASSERT_EQ(j["records"].size(), static_cast<std::size_t>(i + 1)) << "after record " << i;
    ASSERT_EQ(j["records"][static_cast<std::size_t>(i)]["size_bytes"], i);
    ASSERT_EQ(j["tool_version"], "x");
  }
  EXPECT_GT(out.whole_writes(), 2);  // the reserve ran out at least once
  out.finish();
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, read_json(path).dump(2) + "\n");  // the reserve is gone: laid out as dump(2)
  EXPECT_EQ(read_json(path)["records"].size(), 250u);
  std::remove(path.c_str());
}

// 2000 records cost O(records) bytes: a file rewritten after each record would write about 1000 times
// its final size.
TEST(ResultsJson, TwoThousandRecordsWriteLinearBytes) {
  const std::string path = temp_path("linear.json");
  ResultsHeader header = header_of_version("x");
  header.system.environment["NOTE"] = std::string(20000, 's');
  ResultsJson out(path, header);
  for (int i = 0; i < 2000; ++i) out.add(numbered(i));
  out.finish();
  const std::int64_t final_bytes = file_bytes(path);
  ASSERT_EQ(read_json(path)["records"].size(), 2000u);
  EXPECT_LE(out.whole_writes(), 12) << "whole writes";
  EXPECT_LE(out.bytes_written(), 6 * final_bytes) << "bytes written for a " << final_bytes << "-byte file";
  std::remove(path.c_str());
}

// SIGKILL at an arbitrary moment of a stream of records leaves a valid file with records 0..k-1.
TEST(ResultsJson, KillAtAnyMomentKeepsEveryFinishedRecord) {
  const std::string path = temp_path("killed.json");
  for (int delay_ms : {5, 20, 60}) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ResultsJson out(path, header_of_version("x"));
      for (int i = 0;; ++i) out.add(numbered(i, static_cast<std::size_t>(i % 300)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    // Killed before its constructor wrote the file (a slow fork on a loaded machine): no record was
    // finished, so none is lost. A file that exists must be valid JSON.
    if (!std::filesystem::exists(path)) continue;
    const auto j = read_json(path);  // throws (fails the test) unless valid JSON
    const auto& records = j["records"];
    for (std::size_t i = 0; i < records.size(); ++i) ASSERT_EQ(records[i]["size_bytes"], i);
    std::remove(path.c_str());
  }
  std::remove(OutputLock::lock_path(path).c_str());  // the killed writer's (it holds no lock)
}

// An endless sweep (bench -N 0) must not hold its records: the heap in use grows by less than the
// records' text (a sink keeping each record, as text or as JSON, grows by several times it).
TEST(ResultsJson, HeapStaysBoundedHoweverManyRecords) {
  const std::string path = temp_path("endless.json");
  ResultsJson out(path, header_of_version("x"));
  for (int i = 0; i < 200; ++i) out.add(numbered(i, 400));  // the first whole writes, the reserve's first sizes
  const std::size_t before = mallinfo2().uordblks;
  constexpr int kRecords = 40000;  // about 20 MB of records' text
  for (int i = 200; i < kRecords; ++i) out.add(numbered(i, 400));
  const std::size_t after = mallinfo2().uordblks;
  EXPECT_LT(after, before + (4u << 20)) << "heap grew by " << (after - before) << " bytes over " << kRecords - 200
                                        << " records";
  EXPECT_EQ(out.records(), kRecords);
  out.finish();
  const auto j = read_json(path);
  ASSERT_EQ(j["records"].size(), static_cast<std::size_t>(kRecords));
  EXPECT_EQ(j["records"][kRecords - 1]["size_bytes"], kRecords - 1);
  std::remove(path.c_str());
}

// Records read back from the file keep every character (quotes, braces and backslashes in strings), in
// order, through finish(), set_header() and more records after them; the result is laid out as dump(2).
TEST(ResultsJson, RecordsReadBackFromTheFileKeepEveryCharacter) {
  const std::string path = temp_path("readback.json");
  ResultsJson out(path, header_of_version("x"));
  const std::string nasty = "a \"quoted\" } { ] [ \\ \\\" \n\t\u00e9 end";
  ResultRecord r = numbered(0);
  r.error = nasty;
  out.add(r);
  out.add(numbered(1, 5000));  // larger than a page: a whole write with it
  out.finish();
  ResultsHeader ended = header_of_version("x");
  ended.system.has_link_end = true;
  ended.link_during_run = {{0, "0000:18:00.0", 4, 16, 4, 16}, {1, "0000:3b:00.0", 4, 16, 4, 16}};
  out.set_header(ended);
  out.add(numbered(2));
  out.finish();
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(text, j.dump(2) + "\n");
  ASSERT_EQ(j["records"].size(), 3u);
  EXPECT_EQ(j["records"][0]["error"], nasty);
  EXPECT_EQ(j["records"][1]["error"], std::string(5000, 'e'));
  EXPECT_EQ(j["records"][2]["size_bytes"], 2);
  EXPECT_EQ(j["link_state_during_run"].size(), 2u);
  std::remove(path.c_str());
}

TEST(ResultsJson, UnwritablePathFailsAtOnce) {
  EXPECT_THROW(ResultsJson("/nonexistent-dir/x.json", ResultsHeader{}), Error);
}

}  // namespace
}  // namespace pipebench
