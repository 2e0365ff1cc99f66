// SPDX-License-Identifier: Apache-2.0
// End to end: what input files contain. Secrets in arguments and the environment never reach an output,
// hostile rules files, values out of range, interleaved or damaged logs and text that is not UTF-8 get
// one line and exit status 2 (or are read with a warning), and report.md never turns input text into
// Markdown or HTML. Every file is made in a temporary folder.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"
#include "trace/nsys_fixture.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

const char* kModel =
    "--num-layers 4 --hidden-size 128 --num-attention-heads 4 --seq-length 32 --max-position-embeddings 32 "
    "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 2 --world-size 2 --vocab-size 1000 "
    "--fp16 ";

class HostileInput : public pipebench::e2e::TempFolder {
 protected:
  // A small results file measured by the binary (1 rank), made once per test that needs it.
  std::string results() {
    const std::string out = path("r.json");
    if (!std::filesystem::exists(out)) {
      const Result r = run("bench --backend mpi -b 8 -e 64 -f 8 -n 2 --reps 2 -w 1 --quiet --json " + out);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return out;
  }
  // The results file edited by `edit`, written as `name`.
  std::string edited_results(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(slurp(results()));
    edit(j);
    return write(name, j.dump());
  }
};

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// One line on stderr with the needle, exit status 2.
void expect_usage_error(const Result& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// ---- secrets -------------------------------------------------------------------------------------

TEST_F(HostileInput, PlanArgumentListsAndWarningsRedactCredentials) {
  const std::string plan = path("plan.json");
  const Result r = run("plan --json " + plan + " -- " + kModel +
                       "--wandb-exp-name 'key=SECRETW2' --tensorboard-dir https://u:SECRETW3@tb.example/x "
                       "--load s3://AKIA:SECRETS3@bucket/x --data-path '/d?token=SECRETQ'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.out + r.err, "SECRET")) << r.out << r.err;
  const std::string text = slurp(plan);
  EXPECT_FALSE(contains(text, "SECRET")) << text;
  EXPECT_TRUE(contains(text, "key=<redacted>")) << text;
  EXPECT_TRUE(contains(text, "s3://<redacted>@bucket/x")) << text;
  // A flag Megatron refuses is an error naming the flag, never its value.
  const Result bad = run("plan -- " + std::string(kModel) + "--wandb-api-key SECRETW4");
  EXPECT_EQ(bad.status, 2);
  EXPECT_FALSE(contains(bad.out + bad.err, "SECRET")) << bad.err;
}

TEST_F(HostileInput, EnvironmentValuesAndReportsRedactCredentials) {
  const std::string out = path("env.json");
  const Result r = run_shell(
      "OMPI_MCA_pml_ucx_proxy='http://admin:SECRETPASS666@proxy.example:8080' "
      "NCCL_DEBUG_SUBSYS='https://u:SECRETURL777@x.example' CUDA_CACHE_PATH='/x?token=SECRETQ888' " PIPEBENCH_BIN
      " bench --backend mpi -b 8 -e 64 -n 2 --reps 2 -w 1 --quiet --json " +
      out);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = slurp(out);
  EXPECT_FALSE(contains(text, "SECRET")) << text;
  EXPECT_TRUE(contains(text, "\"http://<redacted>@proxy.example:8080\"")) << text;
  // A file written before values were redacted: the report redacts its command line again.
  const std::string old = edited_results("old.json", [](nlohmann::json& j) {
    j["command_line"] = "pipebench run -- --load s3://AKIA:SECRETS3@bucket/x --x 'u?token=SECRETT'";
  });
  const Result rep = run("report " + old + " --out " + path("rep"));
  ASSERT_EQ(rep.status, 0) << rep.err;
  for (const char* f : {"report.html", "report.md", "report.json"}) {
    EXPECT_FALSE(contains(slurp(path("rep/") + f), "SECRET")) << f;
    EXPECT_TRUE(contains(slurp(path("rep/") + f), "redacted")) << f;
  }
}

// ---- rules files ---------------------------------------------------------------------------------

// A recursive alias (even one no rule uses), nested aliases that would grow 352 bytes to about 10 GB,
// duplicate keys and an empty list are each refused with their line.
TEST_F(HostileInput, HostileRulesFilesAreRefusedWithTheirLine) {
  const std::string in = results();
  const auto report = [&](const std::string& rules) {
    return run("report " + in + " --rules " + rules + " --out " + path("o"));
  };
  expect_usage_error(report(write("cycle.yaml", "a: &a\n  b: *a\nrules: []\n")),
                     "cycle.yaml: line 2: alias refers to its own node");
  expect_usage_error(report(write("cycle2.yaml", "rules: &r [{name: x, metric: wrong, at_most: 0, self: *r}]\n")),
                     "line 1: alias refers to its own node");
  std::string laughs = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (const std::string name : {"b", "c", "d", "e", "f", "g", "h", "i"}) {
    const std::string prev(1, static_cast<char>(name[0] - 1));
    laughs += name + ": &" + name + " [*" + prev;
    for (int k = 0; k < 8; ++k) laughs += ", *" + prev;
    laughs += "]\n";
  }
  expect_usage_error(report(write("laughs.yaml", laughs + "rules: *i\n")),
                     "more than 100000 values (after aliases are expanded)");
  expect_usage_error(report(write("dup.yaml", "rules: [{name: a, metric: busbw_gbps, metric: wrong, at_least: 0}]\n")),
                     "dup.yaml: line 1: key 'metric' given twice");
  expect_usage_error(report(write("empty.yaml", "rules: []\n")), "the list of rules is empty");
  expect_usage_error(report(path("nonexist.yaml")), "nonexist.yaml: does not exist");
  expect_usage_error(report(write("utf.yaml", "rules:\n  - name: \"a\xff\xfe\"\n    metric: wrong\n    at_most: 0\n")),
                     "utf.yaml: line 2: not UTF-8 text");
  expect_usage_error(report(write("deep.yaml", "x: " + std::string(100, '[') + std::string(100, ']') + "\n")),
                     "nested deeper than 32 levels");
  std::string many = "rules:\n";
  for (int i = 0; i < 1001; ++i) many += "  - {name: r" + std::to_string(i) + ", metric: wrong, at_most: 0}\n";
  expect_usage_error(report(write("many.yaml", many)), "1001 rules, more than the limit of 1000");
  expect_usage_error(report(write("big.yaml", "# " + std::string(2 << 20, 'x') + "\n")), "larger than 1024 KiB");
  // run checks its rules before measuring, through the same reader.
  expect_usage_error(run("run --backend mpi --no-plan --out " + path("runA") + " --rules " + path("cycle.yaml")),
                     "alias refers to its own node");
  // Anchors and aliases that stay within the limits are fine.
  const Result ok = report(write("ok.yaml",
                                 "rules:\n  - {name: a, metric: wrong, at_most: 0, sizes: &s [8, 1K]}\n"
                                 "  - {name: b, metric: wrong, at_most: 0, sizes: *s}\n"));
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// A rule keeps kMaxRulePoints (1000), its offending points first: 1000 rules over 100k records must not hold
// 100M points in memory and report.json.
TEST_F(HostileInput, ARuleKeepsAtMostAThousandPointsItsOffendingOnesFirst) {
  const std::string in = edited_results("many.json", [](nlohmann::json& j) {
    const nlohmann::json first = j["records"][0];
    j["records"] = nlohmann::json::array();
    for (int i = 0; i < 1500; ++i) {
      nlohmann::json r = first;
      r["size_bytes"] = 8 * (i + 1), r["count"] = 2 * (i + 1), r["in_place"] = false;
      r["busbw_gbps"] = i < 1200 ? 10.0 : 0.5;  // the last 300 points offend
      j["records"].push_back(r);
    }
  });
  const std::string rules = write("bw.yaml", "rules:\n  - {name: bw, metric: busbw_gbps, at_least: 1}\n");
  const Result r = run("report " + in + " --rules " + rules + " --out " + path("many"));
  ASSERT_EQ(r.status, 3) << r.err;
  const nlohmann::json rep = nlohmann::json::parse(slurp(path("many/report.json")));
  const nlohmann::json* bw = nullptr;
  for (const auto& rule : rep["rules"]) bw = rule["name"] == "bw" ? &rule : bw;
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ((*bw)["checked"], 1500);
  EXPECT_EQ((*bw)["message"], "300 of 1500 points violate (busbw_gbps at_least 1)");
  ASSERT_EQ((*bw)["points"].size(), 1000U);
  EXPECT_EQ((*bw)["points_left_out"], 500);
  int failed = 0;
  std::uint64_t previous = 0;
  for (const auto& p : (*bw)["points"]) {
    failed += p["status"] == "FAIL";
    EXPECT_GT(p["size_bytes"].get<std::uint64_t>(), previous) << "kept in the order checked";
    previous = p["size_bytes"].get<std::uint64_t>();
  }
  EXPECT_EQ(failed, 300) << "every offending point kept";
  EXPECT_TRUE(contains(slurp(path("many/report.md")), "500 more checked points of rule bw not kept"));
}

// ---- report.md ------------------------------------------------------------------------------------

// report.md never copies input text raw: HTML from a host name must not run when rendered, nor newlines add
// headings, verdicts and image links of their own.
TEST_F(HostileInput, ReportMarkdownNeverTurnsInputTextIntoMarkup) {
  const std::string in = edited_results("h.json", [](nlohmann::json& j) {
    j["system"]["hosts"] = {"\"><img src=x onerror=\"alert(1)\">"};
    j["command_line"] = "x\n# FAKE HEADING\n> **PASS: 0 failed**\n<script>alert(2)</script>";
    for (auto& r : j["records"]) r["dtype"] = "x](javascript:alert(1)) ![y";
  });
  const Result r =
      run("report " + in + " --out " + path("md") + " --title \"$(printf 'T<svg onload=x>\\n# injected\\n- item')\"");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string md = slurp(path("md/report.md"));
  for (const char* raw : {"<img", "<script", "<svg", "![y"}) EXPECT_FALSE(contains(md, raw)) << raw << "\n" << md;
  // Every "](" that opens a link target is a plot's: the op name's brackets are escaped.
  for (auto at = md.find("]("); at != std::string::npos; at = md.find("](", at + 1)) {
    EXPECT_TRUE(md[at - 1] == '\\' || md.compare(at + 2, 5, "plot-") == 0) << md.substr(at - 20, 40);
  }
  std::istringstream lines_of(md);
  int headings = 0, verdicts = 0;
  for (std::string line; std::getline(lines_of, line);) {
    EXPECT_FALSE(line.rfind("# ", 0) == 0 && headings++ > 0) << "a second title: " << line;
    EXPECT_FALSE(line.rfind("- item", 0) == 0) << line;
    EXPECT_FALSE(contains(line, "FAKE") && line.rfind("#", 0) == 0) << line;
    verdicts += line.rfind("> **", 0) == 0;
  }
  EXPECT_EQ(verdicts, 1) << md;
  // A tag's `<` is an entity (no markup from a host name); `>` alone opens nothing and stays as typed.
  EXPECT_TRUE(contains(md, "&lt;script>")) << md;
  EXPECT_FALSE(contains(md, "<script")) << md;
  // report.html keeps long unbreakable values inside their cells.
  EXPECT_TRUE(contains(slurp(path("md/report.html")), "overflow-wrap: anywhere; }"));
}

// ---- values of input files ------------------------------------------------------------------------

// Each is refused naming its field, not shown as a plausible wrong value.
TEST_F(HostileInput, ResultValuesOutOfRangeAreRefusedNamingTheField) {
  const auto refused = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                           const std::string& needle) {
    expect_usage_error(run("report " + edited_results(name, [&](nlohmann::json& j) { edit(j["records"][0]); }) +
                           " --out " + path("o_" + name)),
                       needle);
  };
  refused(
      "big.json", [](nlohmann::json& r) { r["size_bytes"] = 18446744073709551615.0 * 1.0000001; },
      "records[0]: \"size_bytes\"");
  refused(
      "negbw.json", [](nlohmann::json& r) { r["busbw_gbps"] = -1e308; }, "\"busbw_gbps\" is not a finite number >= 0");
  refused(
      "negtime.json", [](nlohmann::json& r) { r["time_us"] = -5; }, "\"time_us\" is not a finite number >= 0");
  refused(
      "nranks.json", [](nlohmann::json& r) { r["nranks"] = 0; }, "\"nranks\" is 0, outside [1, 1048576]");
  refused(
      "nranks3.json", [](nlohmann::json& r) { r["nranks"] = -3; }, "\"nranks\" is -3");
  refused(
      "wrong.json", [](nlohmann::json& r) { r["wrong"] = -1; }, "\"wrong\" is negative");
  nlohmann::json j = nlohmann::json::parse(slurp(results()));
  std::string text = j.dump();
  text.replace(text.find("\"time_us\":"), 10, "\"time_us\":-99,\"time_us\":");
  expect_usage_error(run("report " + write("dupkey.json", text) + " --out " + path("o_dup")),
                     "key \"time_us\" given twice in one object");
}

// A prediction with iteration_ms -5 is refused, not reported as "-5 ms" and drawn off the chart.
TEST_F(HostileInput, PredictionValuesOutOfRangeAreRefusedByReport) {
  ASSERT_EQ(run("plan --json " + path("p.json") + " -- " + kModel).status, 0);
  const Result p = run("predict --plan " + path("p.json") + " --link-gbps 10 --tflops 100 --json " + path("pred.json"));
  ASSERT_EQ(p.status, 0) << p.err;
  nlohmann::json j = nlohmann::json::parse(slurp(path("pred.json")));
  j["schedules"][0]["iteration_ms"] = -5;
  expect_usage_error(run("report " + write("neg.json", j.dump()) + " --out " + path("o_neg")),
                     "\"schedules[0].iteration_ms\" is -5, outside");
}

// A plan's derived value edited (a negative ideal bubble) is refused by predict, which would otherwise print it
// and write a prediction that report refuses.
TEST_F(HostileInput, APlanWhoseBubbleIsNotItsLayoutsIsRefusedByPredict) {
  ASSERT_EQ(run("plan --json " + path("p.json") + " -- " + kModel).status, 0);
  nlohmann::json j = nlohmann::json::parse(slurp(path("p.json")));
  j["schedules"][0]["bubble_ideal"] = -1;
  const Result r =
      run("predict --plan " + write("neg.json", j.dump()) + " --link-gbps 10 --tflops 100 --json " + path("pbn.json"));
  expect_usage_error(r,
                     "\"schedules[0].bubble_ideal\" is -1, but 2 pipeline ranks, v 1 and 8 microbatches make "
                     "(p-1)/(v m) = 0.125");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(path("pbn.json")));
}

// A complete replay file whose schedule has an empty iterations_ms is refused, not reported as measured.
TEST_F(HostileInput, ReplayIterationCountsAreCheckedByReport) {
  ASSERT_EQ(run("plan --json " + path("p.json") + " -- " + kModel).status, 0);
  const Result r = run("replay --backend mpi --plan " + path("p.json") +
                       " --fwd-ms-per-layer 0.2 --iterations 2 --no-predict --json " + path("replay.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(slurp(path("replay.json")));
  ASSERT_EQ(j["complete"], true);
  j["schedules"][0]["iterations_ms"] = nlohmann::json::array();
  expect_usage_error(run("report " + write("empty.json", j.dump()) + " --out " + path("o_empty")),
                     "empty.json: schedules[0] (1f1b): 0 times in iterations_ms, not its 2 iterations");
  EXPECT_EQ(run("report " + path("replay.json") + " --out " + path("o_whole")).status, 0);
}

// ---- nccl-tests logs ------------------------------------------------------------------------------

std::string fixture(const std::string& name) { return slurp(std::string(TEST_DATA_DIR) + "/nccl-tests/" + name); }

// Two logs written into one file line by line are refused, not imported as one op.
TEST_F(HostileInput, InterleavedNcclTestsLogsAreRefused) {
  std::istringstream a(fixture("all_reduce_perf-2.19.log")), b(fixture("sendrecv_perf-2.19.log"));
  std::string mixed, la, lb;
  for (;;) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) break;
    if (more_a) mixed += la + "\n";
    if (more_b) mixed += lb + "\n";
  }
  const std::string log = write("interleaved.log", mixed);
  expect_usage_error(run("import nccl-tests " + log + " --json " + path("i.json")), "interleaved");
  EXPECT_FALSE(std::filesystem::exists(path("i.json")));
  expect_usage_error(run("report " + log + " --out " + path("o_i")), "interleaved");
  // Logs appended one after the other are still two tests.
  const Result ok = run("import nccl-tests " +
                        write("appended.log", fixture("all_reduce_perf-2.19.log") + fixture("sendrecv_perf-2.19.log")));
  EXPECT_EQ(ok.status, 0) << ok.err;
}

// The table rows of a log, in order.
std::vector<std::string> rows_of(const std::string& log) {
  std::istringstream in(log);
  std::vector<std::string> rows;
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l[0] != '#') rows.push_back(l);
  }
  return rows;
}

// The log with `rows` inserted after its table row `after` (0-based).
std::string inserted(const std::string& log, std::size_t after, const std::vector<std::string>& rows) {
  std::istringstream in(log);
  std::string out;
  std::size_t seen = 0;
  for (std::string l; std::getline(in, l);) {
    out += l + "\n";
    if (l.empty() || l[0] == '#' || seen++ != after) continue;
    for (const auto& r : rows) out += r + "\n";
  }
  return out;
}

// Rows of a second run that never printed its footer, or the first rows again before the footer: two runs
// mixed, refused as a second footer is (never imported under the first run's op). The same rows
// again whole (-N 2) are one run's.
TEST_F(HostileInput, RowsOfAnotherRunInsideANcclTestsTestAreRefused) {
  const std::string all_reduce = fixture("all_reduce_perf-2.19.log");
  const std::vector<std::string> sendrecv = rows_of(fixture("sendrecv_perf-2.19.log"));
  const std::vector<std::string> rows = rows_of(all_reduce);
  const std::string inject = write(
      "inject_rows.log", inserted(all_reduce, 3, std::vector<std::string>(sendrecv.begin(), sendrecv.begin() + 5)));
  expect_usage_error(run("import nccl-tests " + inject + " --json " + path("inject.json")), "interleaved");
  EXPECT_FALSE(std::filesystem::exists(path("inject.json")));
  expect_usage_error(run("report " + inject + " --out " + path("o_inject")), "size 2048 in the rows of float sum");
  EXPECT_FALSE(std::filesystem::exists(path("o_inject")));
  const std::string dup = write("dupsizes.log", inserted(all_reduce, rows.size() - 1, {rows[0], rows[1], rows[2]}));
  expect_usage_error(run("import nccl-tests " + dup), "the footer after 3 of the 14 sizes of a repeat (-N)");
  nlohmann::json j = nlohmann::json::parse(fixture("all_reduce_perf-2.19.json"));
  j["results"].push_back(j["results"][0]);
  expect_usage_error(run("import nccl-tests " + write("j_dupsize.json", j.dump())), "interleaved");
  const Result cycles = run("import nccl-tests " + write("n2.log", inserted(all_reduce, rows.size() - 1, rows)));
  EXPECT_EQ(cycles.status, 0) << cycles.err;
  EXPECT_TRUE(contains(cycles.out, "28 rows")) << cycles.out;
}

// The same file given twice would count twice (a fleet baseline of 3 "samples" from one host, 56 records
// of 28, one trace file as ranks 0 and 1): refused, naming both.
TEST_F(HostileInput, TheSameInputFileTwiceIsRefused) {
  const std::string r1 = results();
  const Result baseline = run("report --make-baseline " + path("mb.json") + " " + r1 + " " + r1);
  expect_usage_error(baseline, "INPUT " + r1 + ": the same file as INPUT " + r1);
  EXPECT_FALSE(std::filesystem::exists(path("mb.json")));
  const std::string relative = std::filesystem::relative(r1).string();
  expect_usage_error(run("report --make-baseline " + path("mb.json") + " " + r1 + " " + relative),
                     "read twice, it would count twice");
  expect_usage_error(run("report " + r1 + " " + relative + " --out " + path("o_dup")), "the same file as INPUT");
  EXPECT_FALSE(std::filesystem::exists(path("o_dup")));
  const std::string log = copy(std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log", "ar.log");
  std::filesystem::create_hard_link(log, path("ar_link.log"));
  expect_usage_error(run("import nccl-tests " + log + " " + path("ar_link.log") + " --json " + path("x4.json")),
                     "FILE " + path("ar_link.log") + ": the same file as FILE " + log);
  EXPECT_FALSE(std::filesystem::exists(path("x4.json")));
  const std::string kineto = copy(std::string(TEST_DATA_DIR) + "/trace/kineto_allreduce_1gpu.json", "k.json");
  expect_usage_error(run("trace " + kineto + " " + kineto + " --quiet"), "the same file as FILE " + kineto);
  // Entries of a list given twice would measure each point twice.
  expect_usage_error(run("bench --backend mpi --sizes 8,64,8 -n 1 --reps 1 --quiet"), "--sizes: 8 bytes given twice");
  expect_usage_error(run("bench --backend mpi --op all_reduce,all_reduce -b 8 -e 8 --quiet"),
                     "--op: all_reduce given twice");
  expect_usage_error(run("bench --backend mpi -d float,float -b 8 -e 8 --quiet"), "-d: float given twice");
  expect_usage_error(run("bench --backend mpi -o sum,max,sum -b 8 -e 8 --quiet"), "-o: sum given twice");
}

// A NUL inside a time makes its row no row (skipped and counted, not 22.0); a host name that is not UTF-8
// is read as U+FFFD.
TEST_F(HostileInput, NcclTestsTextIsReadWordForWordAndAsUtf8) {
  std::string text = fixture("all_reduce_perf-2.19.log");
  text.replace(text.find("22.28"), 5, std::string("22\0.28", 6));
  text.replace(text.find("h200-node1"), 10, "<b>h\xff\xfe</b>");
  const std::string log = write("nul.log", text);
  const Result r = run("import nccl-tests " + log + " --json " + path("nul.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "skipped 1 table rows")) << r.err;
  EXPECT_TRUE(contains(r.err, "2 bytes that are not UTF-8 read as U+FFFD")) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(path("nul.json")));
  EXPECT_EQ(j["records"].size(), 26u);
  EXPECT_TRUE(contains(j["system"].dump(), "<b>h\xef\xbf\xbd\xef\xbf\xbd</b>")) << j["system"].dump();
  // report and predict --table read the log as import does, and say so as it does.
  const Result rep = run("report " + log + " --out " + path("o_nul"));
  EXPECT_EQ(rep.status, 0) << rep.err;
  EXPECT_TRUE(contains(rep.err, "pipebench: warning: " + log + ": 2 bytes that are not UTF-8 read as U+FFFD"))
      << rep.err;
}

// Values are checked, not converted: ngpus 1e12 and version 99 are refused; a result with a negative
// nwrong, a type that is no name or an unknown redop is skipped and counted.
TEST_F(HostileInput, NcclTestsJsonValuesAreCheckedNotConverted) {
  const nlohmann::json good = nlohmann::json::parse(fixture("all_reduce_perf-2.19.json"));
  const auto edited = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return write(name, j.dump());
  };
  expect_usage_error(
      run("import nccl-tests " + edited("g.json", [](nlohmann::json& j) { j["config"]["ngpus"] = 1000000000000; })),
      "config.ngpus 1000000000000 is not an integer in [1, 65536]");
  expect_usage_error(run("import nccl-tests " + edited("v.json", [](nlohmann::json& j) { j["version"] = 99; })),
                     "version 99 is not a -J schema version (1-3)");
  const Result r = run("import nccl-tests " +
                       edited("w.json",
                              [](nlohmann::json& j) {
                                j["results"][0]["out_of_place"]["nwrong"] = -3.5;
                                j["results"][1]["type"] = "<b>evil</b>";
                                j["results"][2]["redop"] = "xor";
                              }) +
                       " --json " + path("w_out.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "skipped 1 results with an nwrong that is not a count")) << r.err;
  EXPECT_TRUE(contains(r.err, "skipped 1 results with a type or redop that is no name")) << r.err;
  EXPECT_TRUE(contains(r.err, "skipped 1 results with a reduction nccl-tests does not have")) << r.err;
  EXPECT_FALSE(contains(slurp(path("w_out.json")), "evil"));
  EXPECT_FALSE(contains(slurp(path("w_out.json")), "xor"));
  // The same in a text log's redop column.
  std::string text = fixture("all_reduce_perf-2.19.log");
  const auto row = text.find("     sum  ");
  ASSERT_NE(row, std::string::npos);
  text.replace(row, 10, "     xor  ");
  const Result t = run("import nccl-tests " + write("xor.log", text) + " --json " + path("xor_out.json"));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(contains(t.err, "skipped 1 table rows with a reduction nccl-tests does not have")) << t.err;
}

// ---- traces ---------------------------------------------------------------------------------------

// A CRC error in a file that decompresses whole is told as such, not as "not JSON".
TEST_F(HostileInput, GzipCorruptionIsReportedAsSuch) {
  std::string gz = slurp(std::string(TEST_DATA_DIR) + "/trace/job_h200_gloo/rank0.json.gz");
  gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 0x5a);  // inside the CRC32 trailer
  expect_usage_error(run("trace " + write("crc.json.gz", gz) + " --quiet"), "crc.json.gz: gzip data corrupt");
}

#if PB_HAVE_SQLITE
// A TEXT or BLOB kernel start is no time: the row is skipped and counted; a kernel name that is not UTF-8
// is read as UTF-8 with U+FFFD.
TEST_F(HostileInput, NsysRowsWithTextTimesAreSkippedAndNamesReadAsUtf8) {
  {
    pipebench::testing::NsysFixture f(path("t.sqlite"));
    const auto k = f.str("ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    f.kernel(0, 7, 100, 200, k, 1, 1);
    f.kernel(0, 7, 300, 400, f.str("gemm"), 2, 1);
    f.kernel(0, 7, 500, 600, k, 3, 1);
    f.exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE correlationId = 2");
    f.exec("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = x'00ff' WHERE correlationId = 3");
    f.exec("INSERT INTO StringIds VALUES (999, CAST(x'6bff6e' AS TEXT))");
    f.kernel(0, 7, 700, 800, 999, 4, 1);
  }
  const Result r = run("trace " + path("t.sqlite") + " --json " + path("t.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out + r.err, "not an integer")) << r.out << r.err;
  EXPECT_TRUE(contains(slurp(path("t.json")), "k\xef\xbf\xbdn"));
}
#endif

// A reference asked for alone (or an interleaved schedule alone) is held against 1F1B, simulated beside it as
// the baseline; the verdict's pick is never a reference, and a reference is never its own baseline (every
// speed-up 1.000).
TEST_F(HostileInput, AReferenceAloneIsComparedWithOneFOneBAndNeverPicked) {
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  for (const std::string schedule : {"zb-h1", "gpipe"}) {
    const std::string out = path(schedule + ".json");
    const Result r =
        run("predict --plan " + plan + " --link-gbps 2 --fwd-ms-per-layer 1 --schedule " + schedule + " --json " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# note: 1f1b: simulated as the baseline of the speed-ups (the selection " + schedule +
                         " leaves it out)"),
              std::string::npos)
        << r.out;
    const nlohmann::json j = nlohmann::json::parse(slurp(out));
    EXPECT_EQ(j["verdict"]["best"], "1f1b") << schedule;
    ASSERT_EQ(j["schedules"].size(), 2u);
    EXPECT_EQ(j["schedules"][1]["name"], "1f1b");
    const double speedup = j["schedules"][0]["speedup_vs_1f1b"];  // of the steady state, which the verdict compares
    EXPECT_EQ(j["verdict"]["compares"], "steady");
    // The speed-up comes from the simulation's integer nanoseconds, steady_ms from its milliseconds: equal to 1e-5.
    const double ratio = j["schedules"][1]["steady_ms"].get<double>() / j["schedules"][0]["steady_ms"].get<double>();
    EXPECT_NEAR(speedup, ratio, 1e-5 * ratio);
  }
}

}  // namespace

// ---- folder inputs --------------------------------------------------------------------------------

int occurrences(const std::string& s, const std::string& needle) {
  int n = 0;
  for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

// trace DIR lists its folder once, so each entry it skips is named once. A link to a regular file is read,
// by trace as by report.
TEST_F(HostileInput, FolderEntriesSkippedAreNamedOnceAndLinksToFilesRead) {
  namespace fs = std::filesystem;
  const std::string job = std::string(TEST_DATA_DIR) + "/trace/job_h200_gloo/";
  const fs::path d = dir_ / "job";
  fs::create_directories(d / "rank3.json");  // a folder with a profile's name
  copy(job + "rank0.json.gz", "job/rank0.json.gz");
  copy(job + "rank1.json.gz", "job/rank1.json.gz");
  copy(job + "rank2.json.gz", "elsewhere.json.gz");
  make_link("../elsewhere.json.gz", "job/rank2.json.gz");
  make_link("../nowhere.json", "job/rank4.json");
  make_fifo("job/rank5.json");
  const Result r = run("trace " + d.string() + " --quiet --json " + path("t.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "rank3.json: a directory, skipped"), 1) << r.err;
  EXPECT_EQ(occurrences(r.err, "rank4.json: a symbolic link to nothing, skipped"), 1) << r.err;
  EXPECT_EQ(occurrences(r.err, "rank5.json: a FIFO, skipped"), 1) << r.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(path("t.json")))["ranks"].size(), 3U) << "rank 2 read through its link";
}

// An empty word is a bad value, not "no value" as CLI11 takes it: "--json ''" (a script's unset variable)
// must not keep the default and write nothing, nor "replay -T ''" turn the timeout off as 0.
TEST_F(HostileInput, AnEmptyFlagValueIsBadInputNotTheDefault) {
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  const std::string model(kModel);
  const std::pair<std::string, std::string> cases[] = {
      {"bench --backend mpi -b 8 -e 8 --json ''", "bench: --json: the value is empty"},
      {"bench --backend mpi -b 8 -e 8 --csv=", "bench: --csv: the value is empty"},
      {"bench --backend mpi -b '' -e 8", "bench: -b: the value is empty"},
      {"predict --plan " + plan + " --link-gbps 10 --fwd-ms-per-layer 1 --json ''",
       "predict: --json: the value is empty"},
      {"replay --plan " + plan + " --fwd-ms-per-layer 1 -T ''", "replay: -T: the value is empty"},
      {"report --mad-k '' " + plan, "report: --mad-k: the value is empty"},
      {"plan --json '' -- " + model, "plan: --json: the value is empty"},
      {"plan --json= -- " + model, "plan: --json: the value is empty"}};
  for (const auto& [args, message] : cases) expect_usage_error(run(args), message);
  // A value attached to its flag is read as before.
  EXPECT_EQ(run("bench --backend mpi -b8 -e 8 -n 1 --reps 1 -w 0 --quiet --json=" + path("r.json")).status, 0);
  EXPECT_TRUE(std::filesystem::exists(path("r.json")));
}

// A file that is not JSON is named without nlohmann-json's exception tag ("[json.exception.parse_error.101]"),
// the library's class name.
TEST_F(HostileInput, NotJsonIsSaidWithoutTheParsersExceptionName) {
  const std::string empty = write("empty.json", "");
  const std::string two = write("two.json", "{}{}");
  const std::string huge = write("huge.json", "1e999999");
  for (const std::string& args : {"predict --link-gbps 10 --fwd-ms-per-layer 1 --plan " + empty,
                                  "predict --link-gbps 10 --fwd-ms-per-layer 1 --plan " + huge,
                                  "report --out " + path("rep") + " " + two, "trace " + two}) {
    const Result r = run(args);
    expect_usage_error(r, "not JSON (");
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
  }
  // The parser's own words after the position differ between nlohmann-json releases (3.11: "syntax error
  // while parsing value", later: "attempting to parse an empty input"): only the position is pipebench's.
  const Result r = run("report --out " + path("rep") + " " + empty);
  EXPECT_NE(r.err.find(": not JSON (parse error at line 1, column 1: "), std::string::npos) << r.err;
}

// A message shows input text's control bytes, so an escape sequence in a rules file or a schedule file
// never drives the terminal (ESC ]0;...BEL would retitle it, ESC [2J clear it) nor a line break print a
// forged second line after pipebench's one.
TEST_F(HostileInput, ErrorLinesShowControlBytesInsteadOfSendingThem) {
  const std::string rules =
      write("esc.yaml",
            "rules:\n  - {name: a, metric: \"busbw\\e]0;PWNED\\a\\e[2J\\npipebench: all passed\", at_least: 1}\n");
  const Result r = run("report --out " + path("rep") + " --rules " + rules + " " + results());
  expect_usage_error(r, "unknown metric 'busbw\\x1b]0;PWNED\\x07\\x1b[2J\\x0apipebench: all passed'");
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  const std::string csv = write("s.csv", "0F0,0F\x1b[2J\xff\n1F0\n");
  const Result s = run("predict --plan " + plan + " --link-gbps 10 --fwd-ms-per-layer 1 --schedule-file " + csv);
  expect_usage_error(s, "cell 2 '0F\\x1b[2J\xef\xbf\xbd': not an action");
}

// Quoted input is cut to a readable length with its size, a NUL inside is shown and does not end the line,
// and characters a terminal shows as nothing (or that reverse the rest) are named by code point.
TEST_F(HostileInput, QuotedTextIsCutAndShowsNulAndInvisibleCharacters) {
  const std::string plan = path("plan.json");
  ASSERT_EQ(run("plan --json " + plan + " -- " + kModel).status, 0);
  const std::string predict = "predict --plan " + plan + " --link-gbps 10 --fwd-ms-per-layer 1 --schedule-file ";
  const Result big = run(predict + write("big.csv", "0F0," + std::string(1'000'000, 'x') + "\n1F0\n"));
  expect_usage_error(big, "cell 2 '" + std::string(200, 'x') + "... (1000000 bytes)': not an action");
  EXPECT_LT(big.err.size(), 1000u);
  const Result nul = run(predict + write("nul.csv", std::string("0F\0"
                                                                "0\n1F0\n",
                                                                9)));
  expect_usage_error(nul, "cell 1 '0F\\x000': not an action (expected");
  const Result zw = run(predict + write("zw.csv", "0\u200bF0\n1F0\n"));
  expect_usage_error(zw, "cell 1 '0\\u200bF0': not an action");
  const Result rlo = run(predict + write("rlo.csv", "\u202e0F0\n1F0\n"));
  expect_usage_error(rlo, "cell 1 '\\u202e0F0': not an action");
  const Result help = run("help " + std::string(100'000, 'w'));
  expect_usage_error(help, "help: no subcommand '" + std::string(200, 'w') + "... (100000 bytes)'");
  EXPECT_LT(help.err.size(), 1000u);
}

// "import --nranks 0" is out of range, not read as no --nranks.
TEST_F(HostileInput, ImportNranksZeroIsOutOfRange) {
  const std::string log = std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log";
  // CLI11's range text differs between releases ("1 to 131072", "[1 - 131072]").
  expect_usage_error(run("import nccl-tests --nranks 0 " + log), "--nranks: Value 0 not in range ");
  expect_usage_error(run("import nccl-tests --nranks 131073 " + log), "--nranks");
  EXPECT_EQ(run("import nccl-tests --nranks 8 " + log).status, 0);
}
