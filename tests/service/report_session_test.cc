// SPDX-License-Identifier: Apache-2.0
// What a measuring command writes for the report: the command line, the links at the start and end of
// the run, each record's path link. The MPI case runs anywhere; the GPU case skips without a GPU.
#include "service/report_session.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "backend/backend_factory.h"
#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace pipebench {
namespace {

class ReportSessionFiles : public e2e::TempFolder {
 protected:
  [[nodiscard]] nlohmann::json read(const std::string& name) const {
    return nlohmann::json::parse(e2e::slurp(path(name)));
  }
};

TEST_F(ReportSessionFiles, HostRanksRecordTheCommandLineAndNoGpuPath) {
  const std::string args = "bench --backend mpi --op all_reduce -b 1K -e 4K -n 2 -w 1 --json " + path("r.json");
  ASSERT_EQ(e2e::run(args).status, 0);
  const nlohmann::json r = read("r.json");
  EXPECT_EQ(r.at("command_line"), "pipebench " + args);
  ASSERT_TRUE(r.at("system").contains("link_state")) << r.at("system").dump();
  EXPECT_TRUE(r["system"]["link_state"].at("start").is_array());
  EXPECT_TRUE(r["system"]["link_state"].at("end").is_array());
  for (const auto& rec : r.at("records")) {
    EXPECT_TRUE(rec.at("path_min_gbps").is_null());
    EXPECT_FALSE(rec.contains("pct_of_link")) << rec.dump();  // unknown: absent, not 0
  }
  const auto report = e2e::run("report " + path("r.json") + " --out " + path("rep"));
  ASSERT_EQ(report.status, 0) << report.err;
  const nlohmann::json verdict = read("rep/report.json");
  for (const auto& rule : verdict.at("rules")) {
    if (rule.at("metric") == "fraction_of_link") {
      EXPECT_EQ(rule.at("message"), "not applied: no GPU path in these results (their ranks ran on host memory)");
    }
  }
  EXPECT_EQ(verdict.at("inputs").at(0).at("command_line"), "pipebench " + args);
}

TEST_F(ReportSessionFiles, GpuRunsRecordTheirLinksAndThePathOfEachRecord) {
  std::string why;
  const int gpus = visible_gpus(&why);
  if (gpus == 0) GTEST_SKIP() << "no GPU: " << why;
  const std::string args =
      "bench --op all_reduce -g " + std::to_string(gpus) + " -b 1M -e 4M -n 2 -w 1 --json " + path("r.json");
  ASSERT_EQ(e2e::run(args).status, 0);
  const nlohmann::json r = read("r.json");
  const std::size_t topo_gpus = r.at("system").at("topology").at("gpus").size();
  for (const char* when : {"start", "end"}) {
    const auto& rows = r.at("system").at("link_state").at(when);
    ASSERT_EQ(rows.size(), topo_gpus) << when;
    for (const auto& row : rows) {
      // Every GPU of the last decade reports its maximum PCIe link through sysfs or NVML.
      EXPECT_FALSE(row.at("pcie_gen_max").is_null()) << row.dump();
    }
  }
  for (const auto& rec : r.at("records")) {
    // Two or more GPUs on one host have a path of known speed; one GPU has none.
    EXPECT_EQ(rec.at("path_min_gbps").is_number(), gpus > 1) << rec.dump();
    EXPECT_EQ(rec.contains("pct_of_link"), gpus > 1) << rec.dump();
  }
  const auto report = e2e::run("report " + path("r.json") + " --out " + path("rep"));
  ASSERT_NE(report.status, 2) << report.err;
  for (const auto& rule : read("rep/report.json").at("rules")) {
    if (rule.at("name") == "links-at-max") {
      EXPECT_GT(rule.at("checked").get<int>(), 0) << rule.dump();
    }
    if (rule.at("metric") == "fraction_of_link" && gpus > 1) {
      EXPECT_GE(rule.at("checked").get<int>(), 1) << rule.dump();  // the largest size, out-of-place and in-place
    }
  }
}

}  // namespace
}  // namespace pipebench
