// SPDX-License-Identifier: Apache-2.0
// --jsonl: one object per record, with where it ran and, where the ranks' link is known, the path's
// theoretical GB/s and the share of it reached (absent where unknown, never 0).
#include "report/jsonl_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "report/report_fixture.h"

namespace pipebench {
namespace {

namespace fs = std::filesystem;

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(JsonlWriter, EachLineCarriesTheLinkAndItsShareWhereKnown) {
  const std::string path =
      (fs::temp_directory_path() / ("pipebench_jsonl_" + std::to_string(getpid()) + ".jsonl")).string();
  const nlohmann::json devices = nlohmann::json::array({{{"rank", 0}, {"host", "n0"}, {"model", "NVIDIA H100"}},
                                                        {{"rank", 1}, {"host", "n0"}, {"model", "NVIDIA H100"}}});
  ResultRecord known = testing::make_record("all_gather", 1 << 30, 360);
  known.link_class = "NV18";
  known.path_min_gbps = 450.0;
  ResultRecord unknown = testing::make_record("all_gather", 1 << 20, 12);
  {
    JsonlWriter w(path, RankDirectory(devices));
    w.add(known);
    w.add(unknown);
    w.finish();
  }
  const std::vector<nlohmann::json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].at("host"), "n0");
  EXPECT_EQ(lines[0].at("link_class"), "NV18");
  EXPECT_DOUBLE_EQ(lines[0].at("path_min_gbps").get<double>(), 450.0);
  EXPECT_DOUBLE_EQ(lines[0].at("pct_of_link").get<double>(), 80.0);
  EXPECT_TRUE(lines[1].at("path_min_gbps").is_null()) << lines[1].dump();
  EXPECT_FALSE(lines[1].contains("pct_of_link")) << lines[1].dump();
  fs::remove(path);
}

// SLURM_JOB_ID holds whatever bytes the environment has; the line stays JSON with U+FFFD for those that are not
// UTF-8, as --json writes them.
TEST(JsonlWriter, AJobIdThatIsNotUtf8IsWrittenAsReplacementCharacters) {
  const std::string path =
      (fs::temp_directory_path() / ("pipebench_jsonl_utf8_" + std::to_string(getpid()) + ".jsonl")).string();
  setenv("SLURM_JOB_ID", "ab\xff", 1);
  {
    JsonlWriter w(path, RankDirectory(nlohmann::json::array()));
    w.add(testing::make_record("all_gather", 1 << 20, 12));
    w.finish();
  }
  unsetenv("SLURM_JOB_ID");
  const std::vector<nlohmann::json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].at("slurm_job_id"), "ab\xEF\xBF\xBD");
  fs::remove(path);
}

}  // namespace
}  // namespace pipebench
