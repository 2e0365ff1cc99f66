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
  o.json_path = json;
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
