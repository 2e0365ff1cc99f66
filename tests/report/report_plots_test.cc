// SPDX-License-Identifier: Apache-2.0
#include "report/report_plots.h"

#include <gtest/gtest.h>

#include "report/report_fixture.h"

namespace pipebench {
namespace {

using testing::make_host;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const Plot* plot_with_stem(const std::vector<Plot>& plots, const std::string& stem) {
  for (const auto& p : plots) {
    if (p.stem == stem) return &p;
  }
  return nullptr;
}

// One rank: busbw is 0 by definition, so the bandwidth plot shows algbw and says why.
TEST(ReportPlots, OneRankPlotsAlgbwAndSaysWhy) {
  ReportInputs in;
  in.results = {make_host("h", 150, 1)};
  for (auto& r : in.results[0].doc.records) r.busbw_gbps = 0;
  auto plots = build_plots(in);
  EXPECT_EQ(plot_with_stem(plots, "busbw-all_reduce-float"), nullptr);
  const Plot* bw = plot_with_stem(plots, "algbw-all_reduce-float");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->title, "algbw vs size: all_reduce float (1 rank: busbw is 0 by definition)");
  EXPECT_NE(bw->svg.find("algbw (GB/s)"), std::string::npos);
  // Where busbw is not 0 on one rank (sendrecv, broadcast, reduce: factor 1), the busbw plot stays.
  for (auto& r : in.results[0].doc.records) r.busbw_gbps = r.algbw_gbps;
  plots = build_plots(in);
  EXPECT_NE(plot_with_stem(plots, "busbw-all_reduce-float"), nullptr);
  in.results = {make_host("h", 150, 2)};
  plots = build_plots(in);
  ASSERT_NE(plot_with_stem(plots, "busbw-all_reduce-float"), nullptr);
  EXPECT_EQ(plot_with_stem(plots, "algbw-all_reduce-float"), nullptr);
}

// A plan's message sizes and a sweep's sizes are separate series with a legend: no line joins them.
TEST(ReportPlots, SweepAndPlanPointsAreSeparateSeries) {
  ReportInputs in;
  in.results = {make_host("h", 150)};
  auto plots = build_plots(in);
  const Plot* bw = plot_with_stem(plots, "busbw-all_reduce-float");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(count(bw->svg, "<polyline"), 1u);
  EXPECT_EQ(bw->svg.find("(sweep)"), std::string::npos);  // a sweep alone needs no kind in its label
  for (const std::uint64_t size : {3000u, 300000u}) {
    auto r = in.results[0].doc.records.front();
    r.size_bytes = size;
    r.plan_ids = {7};
    in.results[0].doc.records.push_back(r);
  }
  plots = build_plots(in);
  for (const std::string stem : {"busbw-all_reduce-float", "latency-all_reduce-float"}) {
    const Plot* p = plot_with_stem(plots, stem);
    ASSERT_NE(p, nullptr) << stem;
    EXPECT_EQ(count(p->svg, "<polyline"), 2u) << stem;
    EXPECT_NE(p->svg.find(">h (sweep)</text>"), std::string::npos) << stem;
    EXPECT_NE(p->svg.find(">h (plan sizes)</text>"), std::string::npos) << stem;
  }
}

}  // namespace
}  // namespace pipebench
