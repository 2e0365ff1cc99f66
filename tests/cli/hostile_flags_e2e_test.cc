// SPDX-License-Identifier: Apache-2.0
// End to end: odd flag values and the files they name. Control bytes in a report title, a damaged NCCL
// topology file, output paths that are links or lie under a regular file, blank lines in a schedule file,
// counts past their limit, numbers in hexadecimal, a garbled nccl-tests binary name, and a failure under
// the host-rank relaunch: each is one line and exit status 2, or text made inert. Every file is made in a
// temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::slurp;

const char* kModel =
    "--num-layers 4 --hidden-size 128 --num-attention-heads 4 --seq-length 32 --max-position-embeddings 32 "
    "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 2 --world-size 2 --vocab-size 1000 "
    "--fp16 ";

class HostileFlags : public pipebench::e2e::TempFolder {
 protected:
  // A 2-rank plan, made once per test that needs it.
  std::string plan() {
    const std::string out = path("plan.json");
    if (!std::filesystem::exists(out)) {
      const Result r = run("plan --json " + out + " -- " + kModel);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return out;
  }
  // nccl-tests' own all_reduce log imported as a results file.
  std::string results() {
    const std::string out = path("r.json");
    if (!std::filesystem::exists(out)) {
      const Result r = run("import nccl-tests " + log() + " --json " + out);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    return out;
  }
  static std::string log() { return std::string(TEST_DATA_DIR) + "/nccl-tests/all_reduce_perf-2.19.log"; }
};

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// One line on stderr with the needle, exit status 2.
void expect_usage_error(const Result& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, needle)) << r.err;
}

// An ESC and a BEL in --title never reach report.md as they are (`cat report.md` would recolour the
// terminal), nor a byte that is not UTF-8 report.md and report.html.
TEST_F(HostileFlags, ReportTitleControlBytesAreShownAsInErrorLines) {
  const Result r =
      run("report " + results() + " --out " + path("rep") + " --title \"$(printf 'ab\\033[31mred\\a\\r\\nX\\377')\"");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string md = slurp(path("rep/report.md")), html = slurp(path("rep/report.html"));
  for (const std::string& doc : {md, html}) {
    EXPECT_FALSE(contains(doc, "\x1b")) << doc.substr(0, 200);
    EXPECT_FALSE(contains(doc, "\a")) << doc.substr(0, 200);
    EXPECT_FALSE(contains(doc, "\xff")) << doc.substr(0, 200);
  }
  // Markdown: the \x of \x1b is itself escaped; the line break is flattened, so the title stays one line.
  EXPECT_TRUE(contains(md, "# ab\\\\x1b\\[31mred\\\\x07  X\xef\xbf\xbd\n")) << md.substr(0, 200);
  EXPECT_TRUE(contains(html, "<title>ab\\x1b[31mred\\x07\r\nX\xef\xbf\xbd</title>")) << html.substr(0, 400);
}

// pipebench's line names the file and line, without tinyxml2's own dump ("Error=XML_ERROR_MISMATCHED_ELEMENT
// ErrorID=14 (0xe) Line number=3: XMLElement name=pci").
TEST_F(HostileFlags, NcclXmlErrorsArePipebenchsLineWithTheFileAndLine) {
  const std::string unclosed =
      write("unclosed.xml", "<system version=\"1\">\n<cpu>\n<pci busid=\"0000:01:00.0\">\n</system>\n");
  Result r = run("topo --nccl-xml " + unclosed);
  if (!PB_HAVE_TINYXML2) {  // a build without tinyxml2 (the GPU node has none) says so, in one line
    expect_usage_error(r, "--nccl-xml: this pipebench was built without an XML parser");
    return;
  }
  expect_usage_error(r, "--nccl-xml " + unclosed + ": not well-formed XML (truncated?): line 3: ");
  EXPECT_FALSE(contains(r.err, "XML_ERROR")) << r.err;
  EXPECT_FALSE(contains(r.err, "ErrorID")) << r.err;
  const std::string twice = write("twice.xml", "<system version=\"1\">\n<cpu a=\"1\" a=\"2\"/></system>\n");
  r = run("topo --nccl-xml " + twice);
  expect_usage_error(
      r, "--nccl-xml " + twice + ": not well-formed XML (truncated?): line 2: a malformed or repeated attribute");
}

// --iterations has an upper bound (replay.json is written again after every iteration, so 2147483647 must
// not be taken): run --replay-iterations' (src/app/README.md, Limits).
TEST_F(HostileFlags, ReplayIterationsHaveTheDocumentedLimit) {
  const std::string replay = "replay --backend mpi --plan " + plan() + " --fwd-ms-per-layer 0.01 --no-predict ";
  expect_usage_error(run(replay + "--iterations 1001"), "--iterations 1001: must be 1 to 1000");
  expect_usage_error(run(replay + "--iterations 2147483647"), "--iterations 2147483647: must be 1 to 1000");
  expect_usage_error(run(replay + "--iterations 0"), "--iterations 0: must be 1 to 1000");
  expect_usage_error(run("run --no-plan --replay-iterations 1001 --out " + path("run")), "--replay-iterations");
}

// "# Collective test starting: all<ESC>[0m_reduce_perf" names no op, not `reduce`, the op whose name is
// left whole in the garbled one.
TEST_F(HostileFlags, AGarbledNcclTestsBinaryNameIsNoOp) {
  std::string text = slurp(log());
  const std::string name = "starting: all_reduce_perf";
  text.replace(text.find(name), name.size(), "starting: all\x1b[0m_reduce_perf");
  const std::string garbled = write("garbled.log", text);
  const Result r = run("import nccl-tests " + garbled + " --json " + path("g.json"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, garbled + ": skipped 14 table rows of a test whose binary name "
                                        "'all\\x1b[0m_reduce_perf' is no nccl-tests binary (give --op)\n"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "\x1b")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("g.json")));
  // --op says what the garbled log does not.
  const Result op = run("import nccl-tests --op all_reduce " + garbled + " --json " + path("g.json"));
  ASSERT_EQ(op.status, 0) << op.err;
  EXPECT_TRUE(contains(slurp(path("g.json")), "\"op\": \"all_reduce\"")) << op.out;
}

// An ESC in a log's host name is shown, not sent to the terminal, in import's summary line.
TEST_F(HostileFlags, ImportShowsControlBytesOfALogsHostNames) {
  std::string text = slurp(log());
  for (auto at = text.find(" on h200-node1 "); at != std::string::npos; at = text.find(" on h200-node1 ", at + 1))
    text.replace(at, 15, " on h200\x1b[2J-node1 ");
  const Result r = run("import nccl-tests " + write("esc-host.log", text));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "\x1b")) << r.out;
  EXPECT_TRUE(contains(r.out, "on h200\\x1b[2J-node1 (NVIDIA H200)")) << r.out;
}

// A --trace that is a link (to nothing, or to a folder) is refused naming it, never written through.
TEST_F(HostileFlags, AnOutputFolderThatIsALinkIsRefusedNamingIt) {
  const std::string predict = "predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --trace ";
  const std::string dangling = make_link(path("nowhere"), "dangling");
  Result r = run(predict + dangling);
  expect_usage_error(r, "--trace " + dangling +
                            ": a symbolic link to nothing; outputs are not written through links (name the target)");
  EXPECT_FALSE(std::filesystem::exists(path("nowhere")));
  std::filesystem::create_directories(path("real"));
  make_link(path("real"), "link");
  expect_usage_error(run(predict + path("link")), "--trace " + path("link") + ": a symbolic link; outputs are not");
  expect_usage_error(run("report " + results() + " --out " + path("link")),
                     "--out " + path("link") + ": a symbolic link");
  EXPECT_TRUE(std::filesystem::is_empty(path("real")));
  r = run(predict + path("real"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(std::filesystem::is_empty(path("real")));
}

// Read-only folders cannot be tested as root (root writes anyway); a path under a regular file fails for
// root too (ENOTDIR), as does a name longer than the file system's 255 bytes (ENAMETOOLONG). Each output is
// named, exit status 2, before anything is measured (no table row on stdout): predict checks its --json
// before it prints its table, replay its --json and --trace before the replay runs.
TEST_F(HostileFlags, AnOutputUnderARegularFileIsNamedBeforeAnythingRuns) {
  const std::string file = write("file", "x");
  const std::string long_name = path(std::string(300, 'n') + ".json");
  const std::string bench = "bench --backend mpi -b 8 -e 64 -n 2 --reps 2 -w 1 --quiet ";
  struct Case {
    std::string args, needle;
  };
  const Case cases[] = {
      {bench + "--json " + file + "/x.json", "--json " + file + "/x.json: cannot be written (Not a directory)"},
      {bench + "--csv " + file + "/x.csv", "--csv " + file + "/x.csv: cannot be written (Not a directory)"},
      {bench + "--json " + long_name, "cannot be written (File name too long)"},
      {"run --backend mpi --host-ranks 1 --no-plan -b 8 -e 64 --quiet --out " + file + "/run",
       "--out " + file + "/run: cannot be made (Not a directory)"},
      {"pairs --backend mpi --host-ranks 2 --quiet --json " + file + "/p.json",
       "--json: " + file + "/p.json: cannot be written (Not a directory)"},
      {"predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --json " + file + "/p.json",
       "--json " + file + "/p.json: cannot be written (Not a directory)"},
      {"predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --trace " + file + "/t",
       "--trace " + file + "/t: cannot be made (Not a directory)"},
      {"replay --backend mpi --plan " + plan() + " --fwd-ms-per-layer 0.01 --no-predict --quiet --json " + file +
           "/r.json",
       "--json " + file + "/r.json: cannot be written (Not a directory)"},
      {"replay --backend mpi --plan " + plan() + " --fwd-ms-per-layer 0.01 --no-predict --quiet --trace " + file + "/t",
       "--trace " + file + "/t: cannot be made (Not a directory)"},
      {"report " + results() + " --out " + file + "/rep", "--out " + file + "/rep: cannot be made (Not a directory)"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    expect_usage_error(r, c.needle);
    std::string rows;  // stdout lines that are not comments: table rows
    for (std::size_t at = 0; at < r.out.size();) {
      const std::size_t nl = r.out.find('\n', at);
      const std::string line = r.out.substr(at, nl - at);
      if (!line.empty() && line[0] != '#') rows += line + "\n";
      at = nl == std::string::npos ? r.out.size() : nl + 1;
    }
    EXPECT_EQ(rows, "") << c.args;
  }
}

// pipebench's line alone, without Open MPI's banners after it (13 lines: "Primary job terminated
// normally, but 1 process returned a non-zero exit code ...", "mpirun detected that one or more processes
// exited with non-zero status ...").
TEST_F(HostileFlags, AFailedRelaunchShowsPipebenchsLineWithoutOpenMpisBanners) {
  const std::string bad = write("bad.json", "{\n");
  const Result r =
      run("replay --backend mpi --plan " + plan() + " --fwd-ms-per-layer 0.01 --iterations 1 --quiet --table " + bad);
  expect_usage_error(r, "pipebench: --table " + bad + ": not JSON");
  EXPECT_TRUE(contains(r.out, "running on the MPI backend with 2 host ranks")) << r.out;  // under mpirun
  EXPECT_FALSE(contains(r.err, "-----")) << r.err;
}

// A --baseline folder holding no results file (here a prediction) is bad input, not a report that compares
// nothing.
TEST_F(HostileFlags, ABaselineFolderWithoutResultsIsRefused) {
  std::filesystem::create_directories(path("base"));
  const Result p = run("predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --json " + path("base/p.json"));
  ASSERT_EQ(p.status, 0) << p.err;
  expect_usage_error(run("report " + results() + " --out " + path("rep") + " --baseline " + path("base")),
                     "--baseline " + path("base") +
                         ": none of its .json files is a results file (pipebench.results/1) or a fleet baseline");
  EXPECT_FALSE(std::filesystem::exists(path("rep")));
}

// A cost flag without its source (--topology without --link, --class-fallback without --table,
// --link-latency-us without --link-gbps) is bad input, not ignored.
TEST_F(HostileFlags, PredictCostFlagsWithoutTheirSourceAreRefused) {
  const std::string zero = "predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 ";
  expect_usage_error(run(zero + "--class-fallback"), "--class-fallback: applies to --table costs only");
  expect_usage_error(run(zero + "--link-latency-us 5"), "--link-latency-us: applies to an assumed link");
  EXPECT_EQ(run(zero + "--link-latency-us 0").status, 0);
  expect_usage_error(run("predict --plan " + plan() + " --zero-comm --fwd-ms-per-layer 1 --topology " + path("t.json")),
                     "--topology " + path("t.json") + ": read only with --link CLASS=GBPS");
  // --shared-path with free transfers changed no number.
  expect_usage_error(run(zero + "--shared-path"), "--shared-path: has no effect with --zero-comm");
  EXPECT_EQ(run("predict --plan " + plan() + " --link-gbps 10 --fwd-ms-per-layer 1 --shared-path").status, 0);
}

// report --make-baseline writes a baseline only: --out, --title, --mad-k and --rules beside it are refused.
TEST_F(HostileFlags, MakeBaselineRefusesTheReportsOwnFlags) {
  const std::string base = path("fleet.json");
  for (const std::string& flag :
       std::vector<std::string>{"--out " + path("rep"), "--title T", "--mad-k 2", "--rules " + path("r.yaml")}) {
    const Result r = run("report --make-baseline " + base + " " + results() + " " + flag);
    expect_usage_error(r, "--make-baseline: writes a fleet baseline, not a report; " + flag.substr(0, flag.find(' ')) +
                              " applies to a report only");
    EXPECT_FALSE(std::filesystem::exists(base)) << flag;
  }
  EXPECT_EQ(run("report --make-baseline " + base + " " + results()).status, 0);
  EXPECT_TRUE(std::filesystem::exists(base));
}

}  // namespace
