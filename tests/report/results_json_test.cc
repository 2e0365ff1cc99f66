// SPDX-License-Identifier: Apache-2.0
#include "report/results_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::string temp_path(const char* name) { return "/tmp/pipebench_test_" + std::to_string(getpid()) + "_" + name; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ResultsJson, FileIsValidAfterEveryRecord) {
  const std::string path = temp_path("results.json");
  ResultsJson out(path, {{"tool_version", "x"}});
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

TEST(ResultsJson, UnwritablePathFailsAtOnce) { EXPECT_THROW(ResultsJson("/nonexistent-dir/x.json", {}), Error); }

}  // namespace
}  // namespace pipebench
