// SPDX-License-Identifier: Apache-2.0
// One report, one story: the report of each kind of run (an imported nccl-tests log, a run with bench --plan,
// a prediction and a replay, a prediction alone) says each statement of its verdict once, never a second
// wording of it; pair figures land on the pair's own ranks; 1-rank groups get no bandwidth line; the
// Markdown holds no HTML entities.
#include <gtest/gtest.h>

#include <string>

#include "core/file_io.h"
#include "io/nccl_tests_log.h"
#include "replay/replay.h"
#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_document.h"
#include "report/report_fixture.h"
#include "report/rule_engine.h"
#include "report/svg_writer.h"
#include "sim/verdict.h"

namespace pipebench {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

ReportInputs seed_run() {
  const std::string path = std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-8x3090-seed.log";
  ReportInputs in;
  in.results = {{path, *nccl_tests_result_set_of(path, read_input_file("FILE", path))}};
  return in;
}

Prediction too_close_prediction() {
  Prediction p;
  p.schedules.resize(2);
  p.schedules[0].id = {"1f1b", 1}, p.schedules[0].iteration_ms = 120;
  p.schedules[1].id = {"interleaved", 2}, p.schedules[1].iteration_ms = 118;
  p.verdict = "too close to call: interleaved:v2 is 1.02x 1F1B, inside the model's +-5 % band";
  Sharing local;  // 4 pipeline stages of 1 rank each reducing their gradients at once: no link crossed
  local.op = "all_reduce", local.group_size = 1, local.groups = 4, local.bytes = 1 << 20;
  local.alone_us = 0.3, local.together_us = 0.2, local.slowdown = 0.71;
  p.sharing = {local};
  return p;
}

// bench --plan's records (a pair on ranks 2 and 3, a 1-rank broadcast), its prediction and its replay.
ReportInputs plan_run() {
  ReportInputs in;
  in.results = {testing::make_host("h", 150, 4)};
  ResultRecord pair = testing::make_record("pair", 1 << 20, 20.0, 0.01, 2);
  pair.ranks = {2, 3};
  pair.pairs = {{0, 1}};  // indices into ranks: 2->3
  ResultRecord local = testing::make_record("broadcast", 1 << 20, 7172.0, 0.01, 1);
  local.ranks = {1};
  in.results[0].doc.records.push_back(pair);
  in.results[0].doc.records.push_back(local);
  in.predictions = {{"prediction.json", too_close_prediction()}};
  ReplayResult replay;
  replay.backend = "mpi", replay.compute = "host-sleep", replay.iterations = 3, replay.world = 4;
  replay.measured_fastest = replay.predicted_fastest = "interleaved:v2";
  for (const auto& [id, predicted, measured] :
       std::vector<std::tuple<ScheduleId, double, double>>{{{"1f1b", 1}, 120, 120}, {{"interleaved", 2}, 118, 119}}) {
    replay.schedules.emplace_back().id = id;
    replay.schedules.back().predicted_ms = predicted;
    replay.schedules.back().iteration_ms = {measured};
    replay.schedules.back().median_ms = measured;
  }
  in.replays = {{"replay.json", replay}};
  return in;
}

ReportInputs prediction_alone() {
  ReportInputs in;
  in.predictions = {{"prediction.json", too_close_prediction()}};
  return in;
}

TEST(ReportStory, EveryStatementOfTheVerdictAppearsOnce) {
  for (const auto& [name, in] : std::vector<std::pair<std::string, ReportInputs>>{
           {"seed", seed_run()}, {"plan run", plan_run()}, {"prediction alone", prediction_alone()}}) {
    const ReportOutcome out = evaluate_report(in, default_rules());
    const ReportDocument doc = build_document(in, out);
    const std::string md = render_markdown(doc), html = render_html(doc);
    // The verdict line up to its first backquote (Markdown escapes those), once.
    const std::string line = verdict_line(out);
    EXPECT_EQ(count(md, line.substr(0, line.find('`'))), 1u) << name << "\n" << md;
    for (const auto& p : in.predictions) EXPECT_EQ(count(md, p.doc.verdict), 1u) << name << "\n" << md;
    for (const auto& r : in.replays) {
      const Agreement a = replay_agreement(r.doc, kDefaultSpeedupBand, "default");
      ASSERT_TRUE(a.compared) << name;
      EXPECT_EQ(count(md, a.text), 1u) << name << "\n" << md;
      EXPECT_EQ(count(html, xml_escape(a.text)), 1u) << name;  // HTML escapes its quotes and apostrophes
      // The prediction is too close to call: no second statement naming a predicted fastest schedule.
      EXPECT_EQ(count(md, "predicted fastest"), 0u) << name << "\n" << md;
    }
    // No bandwidth line of 1-rank groups; such points marked as local.
    EXPECT_EQ(count(md, "of 1 rank"), 0u) << name << "\n" << md;
    EXPECT_EQ(count(md, "7172"), 0u) << name;
    // Markdown without HTML entities ("2->3", ">= 1 GiB" as typed).
    for (const char* entity : {"&gt;", "&lt;", "&amp;", "&quot;", "&#"}) {
      EXPECT_EQ(count(md, entity), 0u) << name << ": " << entity << "\n" << md;
    }
  }
}

TEST(ReportStory, PairFiguresLandOnThePairsOwnRanksAndLocalPointsAreMarked) {
  const ReportInputs in = plan_run();
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  std::string heatmap;
  for (const auto& p : doc.plots) heatmap += p.stem.rfind("pairs", 0) == 0 ? p.svg : "";
  ASSERT_FALSE(heatmap.empty());
  EXPECT_NE(heatmap.find("r2 -&gt; r3: 20"), std::string::npos) << heatmap;  // SVG text is XML-escaped
  EXPECT_EQ(heatmap.find("r0 -&gt; r1: "), std::string::npos) << heatmap;
  const std::string md = render_markdown(doc);
  EXPECT_NE(md.find("| broadcast | float | 1M | out | 1 | local, no link |"), std::string::npos) << md;
}

}  // namespace
}  // namespace pipebench
