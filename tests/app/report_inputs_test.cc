// SPDX-License-Identifier: Apache-2.0
#include "app/report_inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/temp_folder.h"
#include "core/error.h"
#include "io/input_views.h"
#include "io/prediction_io.h"
#include "io/replay_io.h"
#include "io/trace_job_io.h"
#include "report/results_json.h"
#include "report/rule.h"
#include "report/rule_engine.h"
#include "trace/job_fixture.h"

namespace pipebench {
namespace {

namespace fs = std::filesystem;

class ReportInputsTest : public e2e::TempFolder {
 protected:
  std::string error_of(const std::vector<std::string>& inputs) {
    try {
      (void)load_report_inputs(inputs, "");
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(ReportInputsTest, AFolderIsItsJsonFilesSortedWithoutItsReport) {
  fs::create_directories(path("run"));
  write("run/results.json", "{}");
  write("run/a-topology.json", "{}");
  write("run/report.json", "{}");
  write("run/results.csv", "");
  const auto files = expand_input("INPUT", path("run"));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]).filename(), "a-topology.json");
  EXPECT_EQ(fs::path(files[1]).filename(), "results.json");
  fs::create_directories(path("empty"));
  EXPECT_THROW((void)expand_input("INPUT", path("empty")), UsageError);
}

TEST_F(ReportInputsTest, BadInputsNameTheFile) {
  EXPECT_NE(error_of({path("missing.json")}).find(path("missing.json") + ": does not exist"), std::string::npos);
  const auto plan = write("plan.json", R"({"schema": "pipebench.plan/1"})");
  EXPECT_NE(error_of({plan}).find(plan + ": schema 'pipebench.plan/1' is not an input of report"), std::string::npos);
  const auto text = write("notes.json", "not json");
  EXPECT_NE(error_of({text}).find(text + ": not JSON"), std::string::npos);
  const auto bare = write("bare.json", R"({"records": []})");
  EXPECT_NE(error_of({bare}).find(bare + ": not a pipebench file"), std::string::npos);
  const std::string fifo = make_fifo("fifo");
  EXPECT_NE(error_of({fifo}).find(fifo + ": not a regular file or folder"), std::string::npos);
  EXPECT_NE(error_of({}).find("no INPUT"), std::string::npos);
}

// A results file as bench writes it (through the results writer), on `host` with two GPUs.
std::string write_results(const std::string& path, const std::string& host, double busbw_gbps) {
  const nlohmann::json topo = {
      {"schema", "pipebench.topology/1"},
      {"host", host},
      {"gpus", {{{"index", 0}, {"bus_id", "0000:0a:00.0"}}, {{"index", 1}, {"bus_id", "0000:0b:00.0"}}}},
      {"pairs", {{{"kind", "gpu-gpu"}, {"a", 0}, {"b", 1}, {"class", "NV18"}, {"path", {"nvlink"}}}}}};
  ResultsHeader header;
  header.tool_version = "0.1.0";
  header.system.hosts = {host};
  header.system.gpu_models = {"H100"};
  header.system.versions = {{"nccl", "2.21.5"}};
  header.system.devices = {{{0, host, "0000:0a:00.0"}, 0, 0, "H100"}, {{1, host, "0000:0b:00.0"}, 0, 1, "H100"}};
  header.system.topology_json = topo;
  ResultsJson out(path, header);
  for (std::uint64_t size = 1024; size <= (1u << 20); size *= 32) {
    ResultRecord r;
    r.op = "all_reduce";
    r.backend = "nccl";
    r.nranks = 2;
    r.ranks = {0, 1};
    r.dtype = "float";
    r.redop = "sum";
    r.size_bytes = size;
    r.time_us = 10;
    r.busbw_gbps = busbw_gbps;
    r.wrong = 0;
    r.stats.samples = 10;
    r.stats.median_us = 10;
    r.stats.p95_us = 10.5;
    out.add(r);
  }
  return path;
}

TEST_F(ReportInputsTest, ReadsResultsOfSeveralHostsAndRunFolders) {
  fs::create_directories(path("run"));
  write_results(path("run/results.json"), "node-a", 100);
  write("run/plan.json", R"({"schema": "pipebench.plan/1"})");
  const auto b = write_results(path("b.json"), "node-b", 90);
  const auto base = write_results(path("base.json"), "node-a", 100);
  const ReportInputs in = load_report_inputs({path("run"), b}, base);
  ASSERT_EQ(in.results.size(), 2u);
  EXPECT_EQ(host_of(in.results[0]), "node-a");
  EXPECT_EQ(host_of(in.results[1]), "node-b");
  const ResultSet& a = in.results[0].doc;
  EXPECT_EQ(a.records.size(), 3u);  // 1K, 32K, 1M
  EXPECT_EQ(in.results[1].doc.records[0].busbw_gbps, 90);
  ASSERT_EQ(a.system.devices.size(), 2u);
  ASSERT_NE(device_of_rank(a, 1), nullptr);
  EXPECT_EQ(device_of_rank(a, 1)->host, "node-a");
  ASSERT_TRUE(a.system.topology);
  ASSERT_EQ(a.system.topology->gpu_pairs.size(), 1u);
  EXPECT_EQ(a.system.topology->gpu_pairs[0].cls.label(), "NV18");
  ASSERT_EQ(in.baseline.size(), 1u);
  EXPECT_EQ(a.tool_version, "0.1.0");
  EXPECT_EQ(a.system.gpu_models, std::vector<std::string>{"H100"});
  EXPECT_EQ(a.system.versions.at("nccl"), "2.21.5");
  ASSERT_EQ(in.skipped.size(), 1u) << in.skipped[0];  // the run folder's plan, said in the report
  EXPECT_NE(in.skipped[0].find("plan.json"), std::string::npos);
  // A baseline is a results file.
  const auto topo = write("topo.json", R"({"schema": "pipebench.topology/1", "host": "h", "gpus": [], "pairs": []})");
  EXPECT_THROW((void)load_report_inputs({b}, topo), UsageError);
  EXPECT_EQ(load_report_inputs({topo}, "").topologies.size(), 1u);
}

TEST_F(ReportInputsTest, ReadsPredictionAndReplayPerSchedule) {
  Prediction p;
  p.compute_source = "assumed";
  for (int v : {1, 2}) {
    SchedulePrediction s;
    s.id = {v == 1 ? "1f1b" : "interleaved", v};
    s.iteration_ms = v == 1 ? 12.5 : 10.25;
    p.schedules.push_back(s);
  }
  p.best = "interleaved:v2";
  p.verdict = "interleaved v=2 is fastest";
  p.break_even_gbps = {{2, 3.5}};
  const auto pred = write("prediction.json", prediction_to_json(p).dump());
  ReplayResult r;
  r.backend = "mpi";
  r.compute = "host-sleep";
  r.world = 4;
  r.iterations = 2;
  for (int v : {1, 2}) {
    ScheduleReplay s;
    s.id = {v == 1 ? "1f1b" : "interleaved", v};
    s.iteration_ms = {13, 14};
    s.median_ms = v == 1 ? 13.5 : 11.5;
    s.min_ms = 13;
    s.max_ms = 14;
    r.schedules.push_back(s);
  }
  r.measured_fastest = "interleaved:v2";
  r.predicted_fastest = "interleaved:v2";
  const auto rep = write("replay.json", replay_to_json(r, "plan.json").dump());
  const ReportInputs in = load_report_inputs({pred, rep}, "");
  ASSERT_EQ(in.predictions.size(), 1u);
  ASSERT_EQ(in.replays.size(), 1u);
  EXPECT_TRUE(in.skipped.empty());
  const Prediction& back = in.predictions[0].doc;
  ASSERT_EQ(back.schedules.size(), 2u);
  EXPECT_EQ(back.schedules[1].id.name, "interleaved");
  EXPECT_EQ(back.schedules[1].id.v, 2);
  EXPECT_DOUBLE_EQ(back.schedules[1].iteration_ms, 10.25);
  ASSERT_EQ(back.break_even_gbps.size(), 1u);
  EXPECT_EQ(back.break_even_gbps[0].first, 2);
  EXPECT_DOUBLE_EQ(back.break_even_gbps[0].second.value(), 3.5);
  EXPECT_EQ(back.verdict, "interleaved v=2 is fastest");
  ASSERT_EQ(in.replays[0].doc.schedules.size(), 2u);
  EXPECT_DOUBLE_EQ(in.replays[0].doc.schedules[0].median_ms, 13.5);
  EXPECT_NE(replay_verdict_text(in.replays[0].doc).find("measured fastest interleaved:v2"), std::string::npos);
  // The report shows both side by side, with the error of the prediction.
  const std::string cmd =
      std::string(PIPEBENCH_BIN) + " report " + pred + " " + rep + " --out " + path("out") + " >/dev/null";
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0);
  std::stringstream md;
  md << std::ifstream(path("out/report.md")).rdbuf();
  EXPECT_NE(md.str().find("| interleaved v=2 | 10.25 | 11.5 | -10.9 |"), std::string::npos) << md.str();
  EXPECT_TRUE(fs::exists(path("out/plot-1-schedules.svg")) || md.str().find("schedules.svg") != std::string::npos);
  // A prediction file without its schedules is bad input naming the file.
  const auto broken = write("broken.json", R"({"schema": "pipebench.prediction/1"})");
  EXPECT_NE(error_of({broken}).find(broken), std::string::npos);
}

TEST_F(ReportInputsTest, TheCommandExitsThreeWhenARuleFailsAndZeroOtherwise) {
  const auto a = write_results(path("a.json"), "node-a", 100);
  const auto rules = write("rules.json", R"({"rules": [{"name": "ar-busbw", "op": "all_reduce",
      "metric": "busbw_gbps", "sizes": ["1M", "1M"], "at_least": 1000000}]})");
  const std::string cmd = std::string(PIPEBENCH_BIN) + " report " + a + " --out " + path("out");
  EXPECT_EQ(WEXITSTATUS(std::system((cmd + " --rules " + rules + " >/dev/null").c_str())), 3);
  std::ifstream html(path("out/report.html"));
  std::stringstream text;
  text << html.rdbuf();
  EXPECT_NE(text.str().find("ar-busbw"), std::string::npos);
  EXPECT_EQ(WEXITSTATUS(std::system((cmd + " >/dev/null").c_str())), 0);
  EXPECT_EQ(WEXITSTATUS(std::system((cmd + " " + path("missing.json") + " 2>/dev/null").c_str())), 2);
}

// A results file as a GPU run writes it: each record with its path's narrowest link, the system
// with the links at the start and end of the run, the command line.
std::string write_gpu_results(const std::string& path, double busbw_gbps, int nvlinks_down_at_end) {
  // Idle at the snapshot (Gen1): the samples during the run decide.
  auto snapshot = [](int up, int down) {
    return std::vector<LinkStateEntry>{{0, "0000:10:1c.0", 1, 16, 4, 16, 12, 0},
                                       {1, "0000:10:1d.0", 1, 16, 4, 16, up, down}};
  };
  ResultsHeader header;
  header.tool_version = "0.1.0";
  header.command_line = "pipebench bench -b 1K -e 1M";
  SystemInfo& system = header.system;
  system.hosts = {"gpu-node"};
  system.gpu_models = {"NVIDIA A100-SXM4-40GB"};
  system.devices = {{{0, "gpu-node", "0000:10:1c.0"}, 0, 0, "NVIDIA A100-SXM4-40GB"},
                    {{1, "gpu-node", "0000:10:1d.0"}, 0, 1, "NVIDIA A100-SXM4-40GB"}};
  system.link_start = snapshot(12, 0);
  system.has_link_start = true;
  ResultsJson out(path, header);
  for (std::uint64_t size = 1024; size <= (1u << 20); size *= 32) {
    ResultRecord r;
    r.op = "all_reduce";
    r.backend = "nccl";
    r.nranks = 2;
    r.ranks = {0, 1};
    r.dtype = "float";
    r.size_bytes = size;
    r.time_us = 10;
    r.busbw_gbps = busbw_gbps;
    r.wrong = 0;
    r.stats.samples = 10;
    r.stats.median_us = 10;
    r.stats.p95_us = 10.5;
    r.link_class = "PIX";
    r.path_min_gbps = 24.0;
    out.add(r);
  }
  // The run's end: the links then, and the highest seen during it.
  system.link_end = snapshot(12 - nvlinks_down_at_end, nvlinks_down_at_end);
  system.has_link_end = true;
  header.link_during_run = {{0, "", 4, 16, 4, 16, -1, -1, 3}, {1, "", 4, 16, 4, 16, -1, -1, 3}};
  out.set_header(header);
  return path;
}

std::string rule_status(const ReportOutcome& out, const std::string& name) {
  for (const auto& r : out.rules) {
    if (r.name == name) return std::string(status_name(r.status)) + ": " + r.message;
  }
  return "(no rule " + name + ")";
}

TEST_F(ReportInputsTest, TheRunsPathLinksAndLinkStateApplyTheDefaultRules) {
  const auto healthy = write_gpu_results(path("healthy.json"), 20, 0);
  ReportInputs in = load_report_inputs({healthy}, "");
  ASSERT_EQ(in.results.size(), 1u);
  const ResultSet& rs = in.results[0].doc;
  EXPECT_EQ(rs.command_line, "pipebench bench -b 1K -e 1M");
  const std::vector<int> gpus = link_state_gpus(rs);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(link_entry(rs.system.link_start, gpus[1]).pcie_gen, 1);
  EXPECT_EQ(link_over_run(rs, gpus[1]).pcie_gen, 4);  // the samples during the run, not the idle snapshot
  EXPECT_EQ(link_over_run(rs, gpus[1]).nvlinks_up, 12);
  ReportOutcome out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kWarn);  // 20 / 24 = 0.83: between 0.7 and 0.85
  EXPECT_EQ(rule_status(out, "busbw-vs-link"), "PASS: 0 of 1 points violate (fraction_of_link at_least 0.7)");
  EXPECT_EQ(rule_status(out, "busbw-vs-link-warn"), "WARN: 1 of 1 points violate (fraction_of_link at_least 0.85)");
  EXPECT_EQ(rule_status(out, "links-at-max"), "PASS: 0 of 2 points violate (link_below_max at_most 0)");
  // An NVLink down at the end of the run fails the links rule.
  in = load_report_inputs({write_gpu_results(path("lost.json"), 23, 1)}, "");
  out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);
  EXPECT_EQ(out.rules.front().name, "links-at-max");
  EXPECT_EQ(out.rules.front().message, "1 of 2 points violate (link_below_max at_most 0)");
  // The report shows the command line and the narrowest link on the busbw plot.
  const std::string cmd = std::string(PIPEBENCH_BIN) + " report " + healthy + " --out " + path("out") + " >/dev/null";
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0);
  std::stringstream md, svg;
  md << std::ifstream(path("out/report.md")).rdbuf();
  EXPECT_NE(md.str().find("| pipebench bench -b 1K -e 1M |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("| 1 | 0000:10:1d.0 | Gen1 x16 | Gen1 x16 | Gen4 x16 | Gen4 x16 | 12 up | 12 up | ok |"),
            std::string::npos)
      << md.str();
  svg << std::ifstream(path("out/plot-1-busbw-all_reduce-float.svg")).rdbuf();
  EXPECT_NE(svg.str().find("narrowest link 24.0 GB/s"), std::string::npos);
}

TEST_F(ReportInputsTest, ATopologyFileGivesTheLinkOfResultsWithoutOne) {
  if (!PB_HAVE_TINYXML2) GTEST_SKIP() << "the NCCL XML fixture needs tinyxml2 (--nccl-xml is built out)";
  // `pipebench topo --nccl-xml` of the fixture: GPU0-GPU1 share a PCIe switch (PIX).
  const std::string topo = path("topo.json");
  const std::string cmd = std::string(PIPEBENCH_BIN) + " topo --nccl-xml " + TEST_DATA_DIR +
                          "/topology/nccl-aws-p4d-24xl-topo.xml --format json > " + topo;
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(topo));
  double link = 0;
  for (const auto& p : doc["pairs"]) {
    if (p["kind"] == "gpu-gpu" && p["a"] == 0 && p["b"] == 1) link = p["path_min_gbps"].get<double>();
  }
  ASSERT_GT(link, 0);
  // The same file without the run's own link: the topology decides.
  nlohmann::json results = nlohmann::json::parse(std::ifstream(write_gpu_results(path("r.json"), link * 0.5, 0)));
  for (auto& r : results["records"]) r.erase("path_min_gbps");
  results.erase("command_line");
  const auto old = write("old.json", results.dump());
  const ReportInputs in = load_report_inputs({old, topo}, "");
  EXPECT_TRUE(in.results[0].doc.command_line.empty());
  ASSERT_EQ(in.topologies.size(), 1u);
  const auto& pairs = in.topologies[0].doc.gpu_pairs;
  const auto p01 =
      std::find_if(pairs.begin(), pairs.end(), [](const TopologyGpuPair& p) { return p.a == 0 && p.b == 1; });
  ASSERT_NE(p01, pairs.end());
  EXPECT_DOUBLE_EQ(p01->path_min_gbps, link);
  EXPECT_EQ(in.topologies[0].doc.command_line.rfind("pipebench topo --nccl-xml ", 0), 0u);
  const ReportOutcome out = evaluate_report(in, default_rules());
  EXPECT_EQ(out.verdict, Status::kFail);  // half the link
  EXPECT_EQ(out.rules.front().name, "busbw-vs-link");
  ASSERT_EQ(out.rules.front().points.size(), 1u);
  EXPECT_NEAR(out.rules.front().points[0].value.value(), 0.5, 1e-9);
}

// A whole job's `trace --json` (with --compare and --prediction) is an input: its section shows each
// rank's breakdown, the other run and the model check; report.json lists it.
TEST_F(ReportInputsTest, ReadsAJobTraceWithItsComparisonAndModelCheck) {
  fs::create_directories(path("a"));
  fs::create_directories(path("b"));
  testing::JobFixture a;
  a.write(path("a"));
  testing::JobFixture b;
  b.slow_rank = 0;
  b.write(path("b"));
  Prediction p;
  SchedulePrediction s;
  s.id = {"1f1b", 1};
  s.iteration_ms = 10;
  for (int r = 0; r < 4; ++r) {
    PredictedRank pr;
    pr.rank = r;
    pr.nccl_share = 0.4;
    s.ranks.push_back(pr);
  }
  p.schedules.push_back(s);
  p.best = "1f1b";
  const auto pred = write("pred.json", prediction_to_json(p).dump());
  fs::create_directories(path("run"));
  const std::string trace = path("run/trace.json");
  const std::string bin = PIPEBENCH_BIN;
  ASSERT_EQ(WEXITSTATUS(std::system((bin + " trace " + path("a") + " --compare " + path("b") + " --prediction " + pred +
                                     " --tolerance 0.5 --json " + trace + " >/dev/null")
                                        .c_str())),
            0);
  // In a run folder too: the trace is read, not skipped.
  const ReportInputs in = load_report_inputs({path("run")}, "");
  ASSERT_EQ(in.traces.size(), 1u);
  EXPECT_TRUE(in.skipped.empty());
  const TraceJobView& job = in.traces[0].doc.job;
  ASSERT_EQ(job.ranks.size(), 4u);
  EXPECT_TRUE(job.ranks[2].slowest);
  ASSERT_TRUE(job.compare && job.model_check);
  EXPECT_EQ(job.model_check->mismatches, 0);
  EXPECT_NE(in.traces[0].command_line.find("--compare"), std::string::npos);
  ASSERT_EQ(WEXITSTATUS(std::system((bin + " report " + trace + " --out " + path("out") + " >/dev/null").c_str())), 0);
  std::stringstream md;
  md << std::ifstream(path("out/report.md")).rdbuf();
  EXPECT_NE(md.str().find("Trace: " + trace), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("4 ranks; clocks aligned by epoch"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("Against the other run (" + path("b)")), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("Measured against the model (schedule 1f1b, prediction " + pred + ")"), std::string::npos);
  EXPECT_NE(md.str().find("Every rank within the tolerance (0.5"), std::string::npos) << md.str();
  std::stringstream js;
  js << std::ifstream(path("out/report.json")).rdbuf();
  const auto j = nlohmann::json::parse(js.str());
  EXPECT_EQ(j["inputs"][0]["kind"], "trace");
  std::size_t trace_rules = 0;
  for (const auto& r : j["rules"]) {
    if (r["name"] != "trace-matches-model") continue;
    ++trace_rules;
    EXPECT_EQ(r["status"], "PASS");
    EXPECT_EQ(r["checked"], 4);
  }
  EXPECT_EQ(trace_rules, 1u);
  EXPECT_EQ(j["verdict"], "PASS");
  // A trace whose share is out of range is bad input naming the file and the field.
  auto doc = nlohmann::json::parse(std::ifstream(trace));
  doc["ranks"][1]["comm_share"] = 2.0;
  const auto bad = write("bad-trace.json", doc.dump());
  EXPECT_NE(error_of({bad}).find("bad-trace.json: \"ranks[1].comm_share\" is not a share"), std::string::npos)
      << error_of({bad});
}

}  // namespace
}  // namespace pipebench
