// SPDX-License-Identifier: Apache-2.0
// The report in a real browser: write a report from made-up inputs, check its SVG is XML and it links
// nothing on the network, then render report.html in headless Chromium and check the screenshot is not
// blank and the console stayed silent. Skipped, with a message, where chromium is not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#if PB_HAVE_TINYXML2
#include <tinyxml2.h>
#endif
#if PB_HAVE_PNG
#include <png.h>
#endif

#include "core/error.h"
#include "report/report_fixture.h"
#include "report/report_writer.h"

namespace pipebench {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string make_temp_dir() {
  std::string tmpl = (fs::temp_directory_path() / "pipebench_report_XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return "";
  return tmpl;
}

ReportInputs sample_inputs() {
  ReportInputs in;
  in.title = "Qualification <sample>";
  for (int h = 0; h < 4; ++h) in.results.push_back(testing::make_host("node" + std::to_string(h), h == 3 ? 60 : 150));
  in.topologies = {testing::make_topology("node0", 2, 160)};
  in.results[0].doc.link_during_run = {{0, "0000:0a:00.0", 5, 16, 5, 16}, {1, "0000:0b:00.0", 4, 16, 5, 16}};
  InputFile<ResultSet> pairs = testing::make_host("node0", 100, 4);
  pairs.path = "/tmp/pairs.json";
  pairs.doc.records.clear();
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      auto r = testing::make_record("pair", 1 << 26, a + b == 3 ? 20 : 40);
      r.pairs = {{a, b}};
      r.ranks = {a, b};
      pairs.doc.records.push_back(r);
    }
  }
  in.results.push_back(pairs);
  Prediction pred;
  ReplayResult replay;
  for (const auto& [id, ms] :
       std::vector<std::pair<ScheduleId, double>>{{{"1f1b", 1}, 120}, {{"interleaved", 2}, 105}}) {
    pred.schedules.emplace_back().id = id;
    pred.schedules.back().iteration_ms = ms;
    replay.schedules.emplace_back().id = id;
    replay.schedules.back().median_ms = ms + 6;
  }
  pred.break_even_gbps = {{2, 48.0}};
  pred.verdict = "interleaved";
  in.predictions = {{"/tmp/pred.json", pred}};
  in.replays = {{"/tmp/replay.json", replay}};
  // A whole job's trace (trace DIR --compare --prediction), its parts as trace/job_json.h writes them: four
  // ranks, rank 3 beyond the tolerance.
  InputFile<TraceFile> t{"/tmp/<job>.json", {}};
  t.doc.source = "kineto-json";
  nlohmann::json job = {{"ranks", nlohmann::json::array()}};
  job["alignment"] = nlohmann::json::parse(R"({"method": "epoch", "anchor": null, "note": null,
    "uncertainty_us": 3900.0, "checked_runs": 3, "job_span_us": 31000, "missing_ranks": [], "slowest_rank": 2,
    "most_waiting_rank": 0})");
  job["compare"] = nlohmann::json::parse(R"({"other": ["/tmp/1f1b"], "ranks": [], "only_this": [], "only_other": []})");
  job["model_check"] = nlohmann::json::parse(R"({"schedule": "interleaved:v2", "prediction": "/tmp/pred.json",
    "replay": null, "tolerance": 0.1, "mismatches": 1, "notes": [], "ranks": []})");
  for (int r = 0; r < 4; ++r) {
    auto rank = nlohmann::json::parse(R"({"rank_source": "file", "file": "", "source": "kineto-json", "start_us": 0,
      "span_us": 30000, "iteration_ms": 10, "iterations": 3, "iterations_source": "profiler steps",
      "overlap_share": 0.1, "idle_share": 0.2, "comm_overlap_ratio": 0.2, "memcpy_count": 0, "memset_count": 0,
      "damage": null})");
    rank["rank"] = r, rank["device"] = r, rank["slowest"] = r == 2, rank["waits_most"] = r == 0;
    rank["compute_share"] = 0.3 + 0.01 * r, rank["comm_share"] = 0.5 - 0.05 * r;
    job["ranks"].push_back(rank);
    auto compared = nlohmann::json::parse(R"({
      "this": {"compute_share": 0.3, "comm_share": 0.5, "overlap_share": 0.1, "idle_share": 0.2, "iteration_ms": 10},
      "other": {"compute_share": 0.35, "comm_share": 0.15, "overlap_share": 0.02, "idle_share": 0.5,
                "iteration_ms": 12}})");
    compared["rank"] = r;
    job["compare"]["ranks"].push_back(compared);
    auto checked = nlohmann::json::parse(R"({"measured_comm_share": 0.5, "predicted_comm_share": 0.45,
      "replayed_comm_share": null, "measured_iteration_ms": 10, "predicted_iteration_ms": 9.5,
      "replayed_iteration_ms": null, "mismatches": []})");
    checked["rank"] = r;
    if (r == 3) checked["mismatches"].push_back("comm share 0.5 vs predicted 0.2");
    job["model_check"]["ranks"].push_back(checked);
  }
  t.doc.job = trace_job_from_json(job, t.path);
  in.traces.push_back(t);
  return in;
}

// Every <svg>...</svg> of a page.
std::vector<std::string> svg_blocks(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const std::size_t end = html.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(html.substr(at, end + 6 - at));
  }
  return out;
}

bool parses_as_xml(const std::string& text) {
#if PB_HAVE_TINYXML2
  tinyxml2::XMLDocument doc;
  return doc.Parse(text.c_str()) == tinyxml2::XML_SUCCESS;
#else
  return text.rfind("<svg", 0) == 0;
#endif
}

bool links_network(const std::string& text) {
  static const std::regex re(R"re((src|href)\s*=\s*["']?\s*(https?:)?//)re", std::regex::icase);
  return std::regex_search(text, re);
}

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    if (std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0) return name;
  }
  return "";
}

// Renders `html_path` to `png_path`; returns the browser's log (stderr), or "" when it failed.
bool render(const std::string& browser, const std::string& dir, const std::string& html_path,
            const std::string& png_path, std::string* log) {
  const std::string log_path = dir + "/chromium.log";
  const std::string cmd = "timeout 120 " + browser +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync"
                          " --user-data-dir=" +
                          dir +
                          "/profile --enable-logging=stderr --v=0"
                          " --screenshot=" +
                          png_path + " --window-size=1200,2400 file://" + html_path + " >/dev/null 2>" + log_path;
  const int rc = std::system(cmd.c_str());
  *log = slurp(log_path);
  return rc == 0 && fs::exists(png_path);
}

// Console lines of Chromium's log: the page has no script, so any console message (a CSP violation,
// a failed load, a script error) is an error of the report.
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) out.push_back(line);
  }
  return out;
}

// The share of pixels that differ from the top-left pixel (the page background); < 0 when unreadable.
double ink_share(const std::string& png_path) {
#if PB_HAVE_PNG
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, png_path.c_str())) return -1;
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> px(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, px.data(), 0, nullptr)) return -1;
  std::size_t inked = 0;
  const std::size_t n = px.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    inked += px[3 * i] != px[0] || px[3 * i + 1] != px[1] || px[3 * i + 2] != px[2];
  }
  return n ? static_cast<double>(inked) / static_cast<double>(n) : -1;
#else
  (void)png_path;
  return -1;
#endif
}

class ReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

TEST_F(ReportBrowser, WritesThreeFormsWithValidSvgAndNoNetwork) {
  const auto rules = parse_rules(nlohmann::json::parse(R"({"rules": [{"name": "ar-busbw", "op": "all_reduce",
          "metric": "busbw_gbps", "sizes": ["1M", "1M"], "at_least": 1000000}]})"),
                                 "rules.json");
  ReportFiles files;
  EXPECT_EQ(write_report(sample_inputs(), rules, dir_ + "/out", &files), 3);
  EXPECT_EQ(files.verdict, Status::kFail);
  const std::string html = slurp(files.html);
  EXPECT_NE(html.find("ar-busbw"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("Qualification &lt;sample&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_FALSE(links_network(html));
  const auto svgs = svg_blocks(html);
  EXPECT_GE(svgs.size(), 4u);  // busbw, latency, pair heatmap, schedules
  for (const auto& svg : svgs) EXPECT_TRUE(parses_as_xml(svg)) << svg.substr(0, 200);
  EXPECT_NE(html.find("node3"), std::string::npos);  // node diagnosis row
  // The answer first: the verdict box, then the prediction's answer, then the system; every point collapsed.
  const auto verdict_at = html.find("<div class=\"verdict fail\">FAIL: 1 failed, 1 warned</div>");
  const auto answer_at = html.find("<p class=\"answer\">Prediction: interleaved</p>");
  ASSERT_NE(verdict_at, std::string::npos);
  ASSERT_NE(answer_at, std::string::npos);
  EXPECT_LT(verdict_at, answer_at);
  EXPECT_LT(answer_at, html.find("<h2>System and inputs</h2>"));
  EXPECT_NE(html.find("<details>\n<summary>36 measured points</summary>\n<table>"), std::string::npos);
  // The trace section: the per-rank breakdown, the other run and the model check, names escaped.
  EXPECT_NE(html.find("Trace: /tmp/&lt;job&gt;.json"), std::string::npos);
  EXPECT_NE(html.find("clocks aligned by epoch, uncertainty 3900.000 us"), std::string::npos);
  EXPECT_NE(html.find("Against the other run (/tmp/1f1b)"), std::string::npos);
  EXPECT_NE(html.find("comm share 0.5 vs predicted 0.2"), std::string::npos);
  EXPECT_NE(html.find("1 rank(s) beyond the tolerance"), std::string::npos);
  // Markdown: every plot linked relatively and present beside it as an SVG file.
  const std::string md = slurp(files.markdown);
  const std::regex link(R"(!\[[^\]]*\]\(([^)]+)\))");
  std::size_t linked = 0;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator(); ++it, ++linked) {
    const std::string target = (*it)[1];
    EXPECT_EQ(target.find('/'), std::string::npos) << target;
    EXPECT_TRUE(parses_as_xml(slurp(dir_ + "/out/" + target))) << target;
  }
  EXPECT_EQ(linked, svgs.size());
  const auto j = nlohmann::json::parse(slurp(files.json));
  EXPECT_EQ(j["schema"], "pipebench.report/1");
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["verdict_line"], "FAIL: 1 failed, 1 warned");
  EXPECT_EQ(j["counts"]["not_applied"], 0);
  EXPECT_EQ(j["rules"][0]["name"], "ar-busbw");
  EXPECT_EQ(j["rules"][0]["points"][0]["status"], "FAIL");
  // The trace's model check is a built-in warning: rank 3 is beyond its tolerance.
  bool warned = false;
  for (const auto& r : j["rules"]) {
    if (r["name"] != "trace-matches-model") continue;
    warned = true;
    EXPECT_EQ(r["status"], "WARN");
    EXPECT_EQ(r["checked"], 4);
    EXPECT_EQ(r["points"][3]["status"], "WARN");
    EXPECT_EQ(r["points"][0]["status"], "PASS");
  }
  EXPECT_TRUE(warned);
}

TEST_F(ReportBrowser, OutputsNeverReplaceASymlink) {
  fs::create_directories(dir_ + "/out");
  fs::create_symlink(dir_ + "/elsewhere", dir_ + "/out/report.md");
  EXPECT_THROW((void)write_report(sample_inputs(), default_rules(), dir_ + "/out"), UsageError);
  EXPECT_FALSE(fs::exists(dir_ + "/out/report.html"));  // nothing written before the check
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_THROW((void)write_report(sample_inputs(), default_rules(), dir_ + "/file"), UsageError);
}

TEST_F(ReportBrowser, RendersInHeadlessChromiumWithoutConsoleErrors) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): browser check skipped";
  ReportFiles files;
  EXPECT_EQ(write_report(sample_inputs(), default_rules(), dir_ + "/out", &files), 3);
  std::string log;
  ASSERT_TRUE(render(browser, dir_, files.html, dir_ + "/shot.png", &log)) << log;
  EXPECT_TRUE(console_lines(log).empty()) << console_lines(log).front();
#if PB_HAVE_PNG
  EXPECT_GT(ink_share(dir_ + "/shot.png"), 0.02);
#endif
  // The checks themselves can fail: a blank page and a page that logs an error are seen as such.
  std::ofstream(dir_ + "/bad.html") << "<!DOCTYPE html><html><body><script>console.error('x')</script></body></html>";
  ASSERT_TRUE(render(browser, dir_, dir_ + "/bad.html", dir_ + "/bad.png", &log)) << log;
  EXPECT_FALSE(console_lines(log).empty());
#if PB_HAVE_PNG
  EXPECT_LT(ink_share(dir_ + "/bad.png"), 0.001);
#endif
}

}  // namespace
}  // namespace pipebench
