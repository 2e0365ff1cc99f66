// SPDX-License-Identifier: Apache-2.0
// pairs goes through the one measuring loop: a failing point is caught, counted and reported.
#include "app/pairs_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "app/loopback.h"
#include "cli/temp_folder.h"

namespace pipebench {
namespace {

class PairsCommand : public e2e::TempFolder {};

PairsOptions small_options(const std::string& json) {
  PairsOptions o;
  o.sizes_bytes = {1024, 4096};
  o.iters = 2;
  o.warmup = 1;
  o.reps = 2;
  o.gpus_per_process = 2;
  o.outputs.json_path = json;
  return o;
}

TEST_F(PairsCommand, EveryPointIsMeasuredAndChecked) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  ::testing::internal::CaptureStdout();
  const int rc = run_pairs_on(backend, small_options(path("r.json")), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("# Wrong values: 0 OK"), std::string::npos) << out;
  EXPECT_EQ(out.find("Failed points"), std::string::npos) << out;
  const auto results = nlohmann::json::parse(std::ifstream(path("r.json")));
  EXPECT_EQ(results["records"].size(), 6u);  // 2 sizes x (0:1, 1:0 one way + {0,1} both ways)
}

// pairs writes every record output of the table (service/record_outputs.h), as bench does.
TEST_F(PairsCommand, EveryRecordOutputIsWritten) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  PairsOptions o = small_options(path("r.json"));
  o.outputs.jsonl_path = path("r.jsonl");
  o.outputs.prometheus_path = path("r.prom");
  ::testing::internal::CaptureStdout();
  const int rc = run_pairs_on(backend, o, world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << out;
  std::ifstream jsonl(path("r.jsonl"));
  int lines = 0;
  for (std::string line; std::getline(jsonl, line);) {
    EXPECT_EQ(nlohmann::json::parse(line)["size_bytes"].is_number(), true) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 6);
  std::ifstream prom(path("r.prom"));
  const std::string text((std::istreambuf_iterator<char>(prom)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("pipebench_"), std::string::npos) << text;
}

TEST_F(PairsCommand, AFailingPointIsCaughtCountedAndReported) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 4096);  // every 4 KiB send throws
  ::testing::internal::CaptureStdout();
  const int rc = run_pairs_on(backend, small_options(path("r.json")), world);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, static_cast<int>(ExitCode::kRuntimeError)) << out;
  EXPECT_NE(out.find("# Failed points: 3"), std::string::npos) << out;
  // The 1 KiB matrices are complete; the 4 KiB ones show nothing measured.
  EXPECT_NE(out.find("unidirectional send/recv at 4K"), std::string::npos) << out;
  const auto results = nlohmann::json::parse(std::ifstream(path("r.json")));
  ASSERT_EQ(results["records"].size(), 6u);
  int failed = 0;
  for (const auto& r : results["records"]) {
    const bool big = r["size_bytes"].get<std::uint64_t>() == 4096;
    EXPECT_EQ(r.contains("error"), big) << r.dump();
    if (big && r.contains("error")) {
      ++failed;
      EXPECT_NE(r["error"].get<std::string>().find("injected failure"), std::string::npos);
    }
  }
  EXPECT_EQ(failed, 3);
}

}  // namespace
}  // namespace pipebench
