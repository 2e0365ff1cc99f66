// SPDX-License-Identifier: Apache-2.0
#include "report/svg_writer.h"

#include <gtest/gtest.h>

#include <cmath>

#if PB_HAVE_TINYXML2
#include <tinyxml2.h>
#endif

#include "report/charts.h"

namespace pipebench {
namespace {

void expect_xml(const std::string& svg) {
#if PB_HAVE_TINYXML2
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(svg.c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr() << "\n" << svg;
  ASSERT_NE(doc.RootElement(), nullptr);
  EXPECT_STREQ(doc.RootElement()->Name(), "svg");
#else
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
#endif
}

TEST(SvgWriter, EscapesTextAndAttributes) {
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
  EXPECT_EQ(xml_escape(std::string("x\x01y")), "x\\x01y");  // not allowed in XML 1.0: shown as in error lines
  EXPECT_EQ(xml_escape(std::string("a\x1b[2J\xff")), "a\\x1b[2J\xEF\xBF\xBD");  // U+FFFD for a byte not UTF-8
  SvgWriter svg(100, 50, "t<&>");
  svg.text(1, 2, "</svg><script>alert(1)</script>");
  svg.rect(0, 0, 10, 10, "red\" onload=\"x", "tip & <b>");
  const std::string out = svg.str();
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_EQ(out.find("onload=\"x"), std::string::npos);
  expect_xml(out);
}

TEST(SvgWriter, NumbersAreFiniteAndShort) {
  EXPECT_EQ(svg_number(1.0), "1");
  EXPECT_EQ(svg_number(2.345), "2.35");  // rounds
  EXPECT_EQ(svg_number(-0.001), "0");
  EXPECT_EQ(svg_number(NAN), "0");
  EXPECT_EQ(svg_number(INFINITY), "0");
}

TEST(SvgWriter, ElementsAndRotation) {
  SvgWriter svg(200, 100, "plot");
  svg.line(0, 0, 10, 10, "#000", 1, "4 2");
  svg.polyline({{0, 0}, {5, 6.5}}, "#111");
  svg.circle(3, 4, 2, "#222", "point");
  svg.text(10, 50, "y label", SvgWriter::Anchor::kMiddle, 12, -90);
  const std::string out = svg.str();
  EXPECT_NE(out.find("points=\"0,0 5,6.5\""), std::string::npos);
  EXPECT_NE(out.find("stroke-dasharray=\"4 2\""), std::string::npos);
  EXPECT_NE(out.find("transform=\"rotate(-90 10 50)\""), std::string::npos);
  EXPECT_NE(out.find("text-anchor=\"middle\""), std::string::npos);
  EXPECT_NE(out.find("viewBox=\"0 0 200 100\""), std::string::npos);
  expect_xml(out);
}

TEST(Charts, Log2TicksCoverTheSizes) {
  const auto t = log2_ticks(8, 1 << 20);
  ASSERT_GE(t.size(), 2u);
  EXPECT_EQ(t.front(), 8);
  EXPECT_EQ(t.back(), 1 << 20);
  for (const double x : t) EXPECT_EQ(std::exp2(std::round(std::log2(x))), x);  // powers of two
  EXPECT_LE(t.size(), 14u);
  EXPECT_TRUE(log2_ticks(0, 8).empty());
}

TEST(Charts, LinearTicksAreNiceAndCoverTheMaximum) {
  const auto t = linear_ticks(437);
  EXPECT_EQ(t.front(), 0);
  EXPECT_GE(t.back(), 437);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 100);
}

TEST(Charts, LineChartHasAxesUnitsReferenceAndParses) {
  LineChart c;
  c.title = "busbw vs size";
  c.y_label = "busbw (GB/s)";
  c.series = {{"host-a", {{1024, 1.5}, {1 << 20, 150}}}, {"host<b>", {{1024, 1.4}, {1 << 20, 140}}}};
  c.reference_y = 200;
  c.reference_label = "narrowest link 200 GB/s";
  const std::string svg = line_chart_svg(c);
  EXPECT_NE(svg.find("busbw (GB/s)"), std::string::npos);
  EXPECT_NE(svg.find("log2"), std::string::npos);
  EXPECT_NE(svg.find(">1K<"), std::string::npos);
  EXPECT_NE(svg.find(">1M<"), std::string::npos);
  EXPECT_NE(svg.find("narrowest link 200 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("host&lt;b&gt;"), std::string::npos);
  expect_xml(svg);
  LineChart empty;
  EXPECT_NE(line_chart_svg(empty).find("no data"), std::string::npos);
}

TEST(Charts, EachPointsTooltipNamesThatPointWhenOthersCannotBePlaced) {
  // A log axis cannot place 0 or NaN: the plotted points' tooltips must still be their own sizes and values.
  LineChart c;
  c.title = "latency";
  c.y_label = "time (us)";
  c.log_y = true;
  c.series = {{"r0", {{1024, 0.0}, {2048, std::nan("")}, {4096, 30.0}, {8192, 40.0}}}};
  const std::string svg = line_chart_svg(c);
  EXPECT_NE(svg.find("<title>r0: 4K 30</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>r0: 8K 40</title>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<title>r0: 1K"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<title>r0: 2K"), std::string::npos) << svg;
  expect_xml(svg);
}

TEST(Charts, HeatmapShowsValueAndShareOfLimit) {
  Heatmap h;
  h.title = "pairs";
  h.unit = "GB/s";
  h.labels = {"r0", "r1"};
  h.values = {{std::nullopt, 90.0}, {45.0, std::nullopt}};
  h.limits = {{std::nullopt, 100.0}, {std::nullopt, std::nullopt}};
  const std::string svg = heatmap_svg(h);
  EXPECT_NE(svg.find(">90%<"), std::string::npos);
  EXPECT_NE(svg.find(">45<"), std::string::npos);
  expect_xml(svg);
}

TEST(Charts, BarsPerScheduleParse) {
  BarChart b;
  b.title = "iteration time";
  b.y_label = "iteration time (ms)";
  b.groups = {{"1f1b", {{"predicted", 100}, {"replayed", 110}}}, {"interleaved v=2", {{"predicted", 90}}}};
  b.note = "break-even v=2: 50 GB/s";
  const std::string svg = bar_chart_svg(b);
  EXPECT_NE(svg.find("break-even v=2: 50 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("interleaved v=2"), std::string::npos);
  expect_xml(svg);
}

}  // namespace
}  // namespace pipebench
