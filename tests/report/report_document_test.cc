// SPDX-License-Identifier: Apache-2.0
#include "report/report_document.h"

#include <gtest/gtest.h>

#include "report/html_report.h"
#include "report/markdown_report.h"
#include "report/report_fixture.h"
#include "report/rule_engine.h"
#include "sim/cost_model.h"

namespace pipebench {
namespace {

using testing::make_host;

InputFile<Prediction> prediction() {
  Prediction p;
  p.schedules.resize(2);
  p.schedules[0].id = {"1f1b", 1}, p.schedules[0].iteration_ms = 120;
  p.schedules[1].id = {"interleaved", 2}, p.schedules[1].iteration_ms = 105;
  p.verdict = "interleaved v=2 is fastest: 105 ms, 1.14x 1F1B";
  return {"prediction.json", p};
}

const Block* find_table_with(const ReportDocument& doc, const std::string& first_header) {
  for (const auto& b : doc.blocks) {
    if (b.kind == Block::Kind::kTable && !b.items.empty() && b.items[0] == first_header) return &b;
  }
  return nullptr;
}

// The report opens with the verdict and the answer: a prediction alone is a grey "NO CHECKS" with the
// prediction's verdict under it, every rule "NOT APPLIED" in grey, not a green PASS.
TEST(ReportDocument, OpensWithTheVerdictAndTheAnswerAndGreysRulesNotApplied) {
  ReportInputs in;
  in.predictions = {prediction()};
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  ASSERT_GE(doc.blocks.size(), 4u);
  EXPECT_EQ(doc.blocks[0].kind, Block::Kind::kHeading);
  EXPECT_EQ(doc.blocks[0].text, "Verdict");
  EXPECT_EQ(doc.blocks[1].kind, Block::Kind::kVerdict);
  EXPECT_EQ(doc.blocks[1].text.rfind("NO CHECKS on 0 of 6 rules; not applied: ", 0), 0u) << doc.blocks[1].text;
  EXPECT_EQ(doc.blocks[1].css_class, "none");
  EXPECT_EQ(doc.blocks[2].kind, Block::Kind::kParagraph);
  EXPECT_EQ(doc.blocks[2].css_class, "answer");
  EXPECT_EQ(doc.blocks[2].text, "Prediction: interleaved v=2 is fastest: 105 ms, 1.14x 1F1B");
  const Block* rules = find_table_with(doc, "rule");
  ASSERT_NE(rules, nullptr);
  ASSERT_EQ(rules->rows.size(), 6u);
  for (std::size_t i = 0; i < rules->rows.size(); ++i) {
    EXPECT_EQ(rules->rows[i][1], "NOT APPLIED") << rules->rows[i][0];
    EXPECT_EQ(rules->row_class[i], "none") << rules->rows[i][0];
  }
  const std::string html = render_html(doc);
  EXPECT_NE(html.find("<div class=\"verdict none\">NO CHECKS on 0 of 6 rules; not applied: "), std::string::npos);
  EXPECT_EQ(html.find("verdict pass"), std::string::npos);
  EXPECT_EQ(html.find(">PASS<"), std::string::npos);
  EXPECT_NE(html.find("tr.none td"), std::string::npos);  // the grey rows have their style
  EXPECT_LT(html.find("NO CHECKS"), html.find("System and inputs"));
}

// The model's measured terms are named under the schedules, with the prediction they belong to; a
// prediction without any adds no section.
TEST(ReportDocument, MeasuredTermsOfAPredictionAreListed) {
  ReportInputs in;
  in.predictions = {prediction()};
  const auto heading = [](const ReportDocument& doc) {
    for (std::size_t i = 0; i < doc.blocks.size(); ++i) {
      if (doc.blocks[i].kind == Block::Kind::kHeading && doc.blocks[i].text == "Measured terms of the model")
        return static_cast<int>(i);
    }
    return -1;
  };
  EXPECT_EQ(heading(build_document(in, evaluate_report(in, default_rules()))), -1);
  Sharing s;
  s.op = "all_reduce";
  s.group_size = 1;  // one rank crosses no link: no term to list
  s.groups = 4;
  s.bytes = 25192448;
  s.alone_us = 2200;
  s.together_us = 4400;
  s.slowdown = 2;
  in.predictions[0].doc.sharing = {s};
  EXPECT_EQ(heading(build_document(in, evaluate_report(in, default_rules()))), -1);
  in.predictions[0].doc.sharing[0].group_size = 2;
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  const int at = heading(doc);
  ASSERT_GE(at, 0);
  ASSERT_LT(static_cast<std::size_t>(at) + 1, doc.blocks.size());
  ASSERT_EQ(doc.blocks[static_cast<std::size_t>(at) + 1].items.size(), 1u);
  EXPECT_EQ(doc.blocks[static_cast<std::size_t>(at) + 1].items[0],
            "prediction (prediction.json): 4 groups of 2 ranks ran all_reduce of 25192448 bytes at once 2.00x slower "
            "than alone (4400.0 vs 2200.0 us): a resource of 2.00 at full speed");
}

// Counted apart: a healthy host without topology (and a GPU model whose bus its name does not tell) passes
// 3 rules and names the 3 it could not apply, with why, in the verdict line itself: no bare PASS.
TEST(ReportDocument, VerdictCountsRulesNotAppliedApart) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  ASSERT_GE(doc.blocks.size(), 2u);
  const std::string line = doc.blocks[1].text;
  EXPECT_EQ(line.rfind("PASS on 3 of 6 rules; not applied: links-at-max (", 0), 0u) << line;
  EXPECT_NE(line.find("; busbw-vs-link, busbw-vs-link-warn (no topology known"), std::string::npos) << line;
  EXPECT_NE(line.find("run `pipebench topo --format json > topo.json` on the node"), std::string::npos) << line;
  EXPECT_EQ(doc.blocks[1].css_class, "pass");
  EXPECT_NE(render_markdown(doc).find("> **PASS on 3 of 6 rules; not applied: "), std::string::npos);
}

// A long list of offending points and the table of every point are collapsed (HTML <details>), so that
// the page does not open with them; a short list stays open.
TEST(ReportDocument, LongTablesAreCollapsed) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  for (int i = 0; i < 20; ++i) {
    auto r = in.results[0].doc.records.back();
    r.size_bytes = (2u << 20) << (i % 10);
    r.in_place = i >= 10;
    r.stats.median_us = 100, r.stats.p95_us = 200;
    in.results[0].doc.records.push_back(r);
  }
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  const Block* unstable = find_table_with(doc, "point");
  ASSERT_NE(unstable, nullptr);
  EXPECT_EQ(unstable->rows.size(), 20u);
  EXPECT_EQ(unstable->summary, "20 points of rule stable-points");
  const Block* points = find_table_with(doc, "host");
  ASSERT_NE(points, nullptr);
  EXPECT_EQ(points->summary, "26 measured points");
  const std::string html = render_html(doc);
  EXPECT_NE(html.find("<details>\n<summary>20 points of rule stable-points</summary>\n<table>"), std::string::npos);
  // Five unstable points: open.
  in.results[0].doc.records.resize(11);
  const ReportDocument short_doc = build_document(in, evaluate_report(in, default_rules()));
  const Block* few = find_table_with(short_doc, "point");
  ASSERT_NE(few, nullptr);
  EXPECT_EQ(few->rows.size(), 5u);
  EXPECT_TRUE(few->summary.empty());
}

// Each measured point shows the narrowest theoretical link of its ranks' path and the share of it busbw
// reached, "-" where the link is unknown (no topology: not 0 %).
TEST(ReportDocument, MeasuredPointsShowTheirLinkAndItsShare) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  in.topologies = {testing::make_topology("h", 2, 160)};
  const ReportDocument doc = build_document(in, evaluate_report(in, default_rules()));
  const Block* points = find_table_with(doc, "host");
  ASSERT_NE(points, nullptr);
  ASSERT_GE(points->items.size(), 9u);
  EXPECT_EQ(points->items[7], "link (GB/s)");
  EXPECT_EQ(points->items[8], "% of link");
  ASSERT_FALSE(points->rows.empty());
  const auto& peak = points->rows.back();  // 1 MiB at 150 GB/s on a 160 GB/s path
  EXPECT_EQ(peak[6], "150.00");
  EXPECT_EQ(peak[7], "160.00");
  EXPECT_EQ(peak[8], "93.8");
  EXPECT_NE(render_markdown(doc).find("| 150.00 | 160.00 | 93.8 |"), std::string::npos);
  in.topologies.clear();
  const ReportDocument unknown = build_document(in, evaluate_report(in, default_rules()));
  const Block* rows = find_table_with(unknown, "host");
  ASSERT_NE(rows, nullptr);
  for (const auto& row : rows->rows) {
    EXPECT_EQ(row[7], "-");
    EXPECT_EQ(row[8], "-");
  }
}

}  // namespace
}  // namespace pipebench
