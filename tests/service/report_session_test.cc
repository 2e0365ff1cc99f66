// SPDX-License-Identifier: Apache-2.0
// What a measuring command writes for the report: the command line, the links at the start and end of
// the run, each record's path link. The MPI case runs anywhere; the GPU case skips without a GPU.
#include "service/report_session.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app/loopback.h"
#include "backend/backend_factory.h"
#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"
#include "io/results_io.h"
#include "report/report_fixture.h"
#include "service/record_outputs.h"

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

// In one process: the results file's header is the session's typed system as its one writer writes it, and
// the line-per-record sinks take each record's host and device model from that typed context.
TEST_F(ReportSessionFiles, TheFileAndTheSinksTakeTheSessionsTypedSystem) {
  testing::OneProcessWorld world;
  testing::LoopbackBackend backend(2, 0);
  BenchConfig c;
  c.outputs.jsonl_path = path("r.jsonl");
  c.outputs.prometheus_path = path("r.prom");
  SystemInfo system;
  {
    ReportSession report(world, backend, path("r.json"), "", {{"iters", 1}});
    open_record_outputs(report, {report.system(), c, backend, world, std::nullopt});
    report.sink()->add(testing::make_record("all_reduce", 1024, 1.0));
    report.finish();
    system = report.system();
  }
  ASSERT_EQ(system.devices.size(), 2u);
  EXPECT_EQ(system.devices[1].model, "host");
  EXPECT_EQ(system.processes, 1);
  EXPECT_TRUE(system.has_link_end || system.topology_json.contains("error")) << system.topology_json.dump();
  const ResultSet back = load_results("--json", path("r.json"));
  ResultsHeader expected = back;
  expected.system = system;
  EXPECT_EQ(results_header(back), results_header(expected));  // the file holds the typed system, no other
  // The session's topology is typed from its own discovery, as the file's reader makes it of the JSON.
  ASSERT_EQ(system.topology.has_value(), back.system.topology.has_value());
  if (system.topology) {
    EXPECT_EQ(system.topology->host, back.system.topology->host);
    EXPECT_EQ(system.topology->gpus.size(), back.system.topology->gpus.size());
    EXPECT_EQ(system.topology->gpu_pairs.size(), back.system.topology->gpu_pairs.size());
  }
  EXPECT_EQ(back.config, nlohmann::json({{"iters", 1}}));
  ASSERT_EQ(back.records.size(), 1u);
  const nlohmann::json line = nlohmann::json::parse(e2e::slurp(path("r.jsonl")));
  EXPECT_EQ(line.at("host"), world.host());
  EXPECT_EQ(line.at("gpu"), "host");
  EXPECT_NE(e2e::slurp(path("r.prom")).find("host=\"" + world.host() + "\",gpu=\"host\""), std::string::npos);
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
