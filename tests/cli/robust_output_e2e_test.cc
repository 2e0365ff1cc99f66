// SPDX-License-Identifier: Apache-2.0
// End to end: outputs the built binary must not write (links, FIFOs, folders, an input, another output of
// the same command), checked before anything is measured, and write failures that must not pass as
// success. Files are made in a temporary folder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"

namespace {

using pipebench::e2e::Result;
using pipebench::e2e::run;
using pipebench::e2e::run_shell;
using pipebench::e2e::slurp;

const char* kPlanArgs =
    "--num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
    "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 2 --world-size 2 --vocab-size 1000 "
    "--fp16";

const char* kSmallBench = "bench --backend mpi -b 8 -e 64 -f 8 -n 2 --reps 2 -w 1 --quiet";

class RobustOutput : public pipebench::e2e::TempFolder {
 protected:
  void SetUp() override {
    TempFolder::SetUp();
    setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  }
  std::string victim() const { return write("victim.txt", "VICTIM\n"); }

  // A plan made by the binary.
  std::string plan(const std::string& name) const {
    const Result r = run("plan --json " + path(name) + " -- " + kPlanArgs);
    EXPECT_EQ(r.status, 0) << r.err;
    return path(name);
  }
};

// pipebench's own lines on stderr (mpirun may add its banner).
int own_lines(const std::string& s) {
  int n = 0;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) n += line.rfind("pipebench:", 0) == 0;
  return n;
}

int occurrences(const std::string& s, const std::string& needle) {
  int n = 0;
  for (auto at = s.find(needle); at != std::string::npos; at = s.find(needle, at + 1)) ++n;
  return n;
}

void expect_refused(const Result& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.status, 2) << what << "\n" << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << what << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << what << "\n" << r.err;
  EXPECT_EQ(r.out.find("out-of-place"), std::string::npos) << what << ": measured before refusing\n" << r.out;
}

TEST_F(RobustOutput, BenchmarkOutIsNeverWrittenThroughALinkFifoOrFolder) {
  const std::string target = victim();
  const std::string link = make_link(target, "link.json");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_out=" + link + " --benchmark_out_format=json"),
                 "--benchmark_out " + link + ": a symbolic link", "symlink");
  EXPECT_EQ(slurp(target), "VICTIM\n");

  const std::string fifo = make_fifo("gfifo");
  // A FIFO without a reader would block an open for writing: refused at once, never opened.
  const Result f = run_shell("timeout 60 " PIPEBENCH_BIN " " + std::string(kSmallBench) + " --benchmark_out=" + fifo);
  expect_refused(f, "--benchmark_out " + fifo + ": a FIFO", "fifo");

  expect_refused(run(std::string(kSmallBench) + " --benchmark_out=" + dir_.string()), "a directory", "folder");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_out=" + path("no/such/x.json")),
                 "--benchmark_out " + path("no/such/x.json") + ": cannot be written (folder " + path("no/such"),
                 "missing folder");
}

TEST_F(RobustOutput, BenchmarkOutWriteFailureIsAnError) {
  // Files may hold at most 16 KiB (SIGXFSZ ignored, so write(2) fails with EFBIG): the console and the
  // error stream fit, Google Benchmark's JSON of 28 points does not. PMIx keeps its store in memory
  // (gds hash) rather than in files the limit would cut.
  const std::string out = path("gb.json");
  const Result r = run_shell("export PMIX_MCA_gds=hash; trap '' XFSZ; ulimit -f 16; exec " PIPEBENCH_BIN
                             " bench --backend mpi -b 8 -e 64K -f 2 -n 2 --reps 2 -w 1 --quiet --benchmark_out=" +
                             out);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("--benchmark_out " + out + ": write failed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(RobustOutput, BenchmarkOutHoldsGoogleBenchmarksJsonOfEveryPoint) {
  const std::string out = path("gb.json");
  const Result r = run(std::string(kSmallBench) + " -N 2 --benchmark_format=json --benchmark_out=" + out +
                       " --benchmark_out_format=json");
  ASSERT_EQ(r.status, 0) << r.err;
  // The file holds the latest sweep; the console got Google Benchmark's JSON of both.
  const auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j["benchmarks"].size(), 4u);
  EXPECT_EQ(j["context"]["executable"], "pipebench");  // not a pointer left dangling
  EXPECT_NE(r.out.find("\"benchmarks\""), std::string::npos);
  const Result csv =
      run(std::string(kSmallBench) + " --benchmark_out=" + path("gb.csv") + " --benchmark_out_format=csv");
  ASSERT_EQ(csv.status, 0) << csv.err;
  // Google Benchmark's CSV: the context, then the table.
  EXPECT_NE(slurp(path("gb.csv")).find("\nname,iterations,"), std::string::npos) << slurp(path("gb.csv"));
}

TEST_F(RobustOutput, BadGoogleBenchmarkFormatsAreOneLineBeforeMeasuring) {
  expect_refused(run(std::string(kSmallBench) + " --benchmark_format=xml"),
                 "--benchmark_format=xml: unknown format (one of console, json, csv)", "format");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_out_format=yaml --benchmark_out=" + path("x.yaml")),
                 "--benchmark_out_format=yaml: unknown format", "out format");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_out_format=csv"),
                 "--benchmark_out_format=csv applies only with --benchmark_out=FILE", "out format alone");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_time_unit=h"), "--benchmark_time_unit=h", "unit");
  expect_refused(run(std::string(kSmallBench) + " --benchmark_repetitions=1000000"), "--benchmark_repetitions=1000000",
                 "repetitions");
  expect_refused(run("run --backend mpi --no-plan --out " + path("run") + " --benchmark_format=xml"),
                 "--benchmark_format=xml", "run");
  EXPECT_FALSE(std::filesystem::exists(path("x.yaml")));
}

// Each command that reads a file and writes one: the output named as the input (by another spelling of
// its path) is refused and the input is left as it was.
TEST_F(RobustOutput, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  const std::string log = copy(TEST_DATA_DIR "/nccl-tests/all_reduce_perf-2.19.log", "a.log");
  const std::string gz = copy(TEST_DATA_DIR "/trace/job_h200_gloo/rank0.json.gz", "in0.json.gz");
  const std::string p = plan("p.json");
  const std::string other = dir_.string() + "/../" + dir_.filename().string() + "/";  // the same folder
  struct Case {
    std::string args, input, needle;
  };
  const std::vector<Case> cases = {
      {"import nccl-tests " + log + " --json " + other + "a.log", log,
       "--json " + other + "a.log: the same file as the input FILE " + log},
      {"predict --plan " + p + " --link-gbps 10 --tflops 100 --json " + other + "p.json", p,
       "the same file as the input --plan"},
      {"bench --backend mpi --plan " + p + " -n 2 --reps 2 -w 1 --json " + p, p,
       "--json " + p + ": the same file as the input --plan"},
      {"replay --backend mpi --plan " + p + " --fwd-ms-per-layer 0.2 --iterations 1 --no-predict --json " + p, p,
       "the same file as the input --plan"},
      {"trace " + gz + " --json " + other + "in0.json.gz", gz, "the same file as the input FILE " + gz},
      {"trace " + dir_.string() + " --json " + gz, gz, "--json " + gz + ": the same file as the input FILE"},
  };
  for (const auto& c : cases) {
    const std::string before = slurp(c.input);
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(own_lines(r.err), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(slurp(c.input), before) << c.args << ": the input was changed";
  }
}

// The files a command names itself in an output folder (traces, the report's files, the run folder's) are
// checked against the inputs like any output: an input of that name is refused and kept.
TEST_F(RobustOutput, AFileWrittenIntoAnOutputFolderIsNeverAnInput) {
  std::filesystem::create_directories(path("tdir"));
  std::filesystem::create_directories(path("rdir"));
  std::filesystem::create_directories(path("rep"));
  std::filesystem::create_directories(path("runY"));
  const std::string traced = copy(plan("p.json"), "tdir/trace-1f1b-v1.json");
  const std::string replayed = copy(path("p.json"), "rdir/replay-1f1b-v1.json");
  const std::string results = copy(TEST_DATA_DIR "/nccl-tests/all_reduce_perf-2.19.json", "x.json");
  ASSERT_EQ(run("import nccl-tests " + results + " --json " + path("rep/report.json")).status, 0);
  const std::string rules = "rules: [{name: floor, metric: busbw_gbps, at_least: 0}]\n";
  const std::string report_rules = write("rep/report.md", rules);
  const std::string run_rules = write("runY/results.csv", rules);
  struct Case {
    std::string args, input, needle;
  };
  const std::vector<Case> cases = {
      {"predict --plan " + traced + " --link-gbps 2 --fwd-ms-per-layer 1 --trace " + path("tdir"), traced,
       "--trace " + traced + ": the same file as the input --plan " + traced},
      {"replay --backend mpi --plan " + replayed +
           " --fwd-ms-per-layer 0.2 --iterations 1 --no-predict --schedule "
           "1f1b --trace " +
           path("rdir"),
       replayed, "--trace " + replayed + ": the same file as the input --plan " + replayed},
      {"report " + path("rep/report.json") + " --out " + path("rep"), path("rep/report.json"),
       "--out " + path("rep/report.json") + ": the same file as the input INPUT " + path("rep/report.json")},
      {"report " + path("rep/report.json") + " --out " + path("rep") + " --rules " + report_rules, report_rules,
       "the same file as the input"},
      {"run --backend mpi --host-ranks 1 -b 8 -e 64 --point-seconds 0.05 --no-plan --quiet --out " + path("runY") +
           " --rules " + run_rules,
       run_rules, "--out " + run_rules + ": the same file as the input --rules " + run_rules},
  };
  for (const auto& c : cases) {
    const std::string before = slurp(c.input);
    const Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(own_lines(r.err), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(slurp(c.input), before) << c.args << ": the input was changed";
  }
  EXPECT_FALSE(std::filesystem::exists(path("rep/report.html")));
  EXPECT_FALSE(std::filesystem::exists(path("runY/results.json")));
}

// Every name predict derives (a schedule file's trace named after the file) is checked before the prediction
// runs: a name too long for the file system is one line, and neither a trace nor --json is written.
TEST_F(RobustOutput, ADerivedTraceNameTooLongIsToldBeforeAnythingIsWritten) {
  std::string rows[2];
  for (int mb = 0; mb < 8; ++mb) {
    rows[1] += (mb ? "," : "") + ("1F" + std::to_string(mb)) + ",1B" + std::to_string(mb);
    if (mb == 0) rows[0] += "0F0";
    if (mb + 1 < 8) rows[0] += ",0F" + std::to_string(mb + 1);
    rows[0] += ",0B" + std::to_string(mb);
  }
  const std::string csv = write(std::string(240, 'L') + ".csv", rows[0] + "\n" + rows[1] + "\n");
  std::filesystem::create_directories(path("tr"));
  const Result r =
      run("predict --plan " + plan("p.json") + " --link-gbps 2 --fwd-ms-per-layer 1 --schedule 1f1b --schedule-file " +
          csv + " --trace " + path("tr") + " --json " + path("p.pred.json"));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("-v1.json: cannot be written (File name too long)"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(path("tr")));
  EXPECT_FALSE(std::filesystem::exists(path("p.pred.json")));
  EXPECT_EQ(r.out, "");
}

TEST_F(RobustOutput, TwoOutputsOfOneCommandMustBeTwoFiles) {
  const std::string gz = copy(TEST_DATA_DIR "/trace/job_h200_gloo/rank0.json.gz", "in0.json.gz");
  const std::string same = path("same.out");
  expect_refused(run(std::string(kSmallBench) + " --json " + same + " --csv " + same),
                 "--csv " + same + ": the same file as --json " + same + " (each output needs its own file)",
                 "json csv");
  expect_refused(run(std::string(kSmallBench) + " --json " + same + " --benchmark_out=" + same),
                 "the same file as --json", "json benchmark_out");
  const std::string tdir = path("tdir");
  const Result pr = run("predict --plan " + plan("p.json") + " --link-gbps 10 --tflops 100 --trace " + tdir +
                        " --json " + tdir + "/trace-1f1b-v1.json");
  EXPECT_EQ(pr.status, 2) << pr.err;
  EXPECT_NE(pr.err.find("the same file as --json " + tdir + "/trace-1f1b-v1.json"), std::string::npos) << pr.err;
  const Result t = run("trace " + gz + " --json " + same + " --chrome-trace " + same);
  EXPECT_EQ(t.status, 2) << t.err;
  EXPECT_NE(t.err.find("--chrome-trace " + same + ": the same file as --json " + same), std::string::npos) << t.err;
  EXPECT_FALSE(std::filesystem::exists(same));
}

// predict --trace streams each trace to its file as the simulation makes it: the largest schedule of a plan
// at the task limit (p 64, v 8, 1024 microbatches: a 270 MB trace, several GB as one JSON document) is
// written within 1 GB of address space.
TEST_F(RobustOutput, PredictTraceOfTheLargestPlanIsWrittenInBoundedMemory) {
  const Result planned = run(
      "plan --json " + path("p64.json") +
      " -- --num-layers 512 --hidden-size 512 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 --global-batch-size 1024 --pipeline-model-parallel-size 64 --world-size 64 "
      "--vocab-size 1000 --fp16");
  ASSERT_EQ(planned.status, 0) << planned.err;
  const Result r = run_shell("ulimit -v 1000000; " PIPEBENCH_BIN " predict --plan " + path("p64.json") +
                             " --link-gbps 10 --tflops 100 --schedule interleaved:v8 --trace " + path("tr"));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string trace = path("tr/trace-interleaved-v8.json");
  ASSERT_GT(std::filesystem::file_size(trace), 100u << 20);
  const std::string text = slurp(trace);
  EXPECT_EQ(text.rfind("{\"traceEvents\":[\n", 0), 0u);
  EXPECT_EQ(text.substr(text.size() - 27), "\n],\"displayTimeUnit\":\"ms\"}\n");
}

// Plan counts have limits checked before anything is allocated (README: Limits).
TEST_F(RobustOutput, ExpertCountAboveItsLimitIsRefusedAtOnce) {
  const Result r = run_shell("timeout 60 " PIPEBENCH_BIN " plan --json " + path("ex.json") + " -- " + kPlanArgs +
                             " --num-experts 1000000000 --moe-router-topk 2");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--num-experts 1000000000 is above the limit of 16384"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("ex.json")));
  // At the limit: planned (the MoE rules need top-k > 1 or the pre-softmax router).
  const Result at =
      run("plan --json " + path("ex.json") + " -- " + kPlanArgs + " --num-experts 16384 --moe-router-topk 2");
  EXPECT_EQ(at.status, 0) << at.err;
  // A plan file with more experts than that: refused by the reader, naming the field.
  nlohmann::json j = nlohmann::json::parse(slurp(path("ex.json")));
  j["model"]["num_experts"] = 16385;
  write("ex2.json", j.dump());
  const Result file = run("predict --plan " + path("ex2.json") + " --link-gbps 10 --tflops 100");
  EXPECT_EQ(file.status, 2) << file.err;
  EXPECT_NE(file.err.find("num_experts"), std::string::npos) << file.err;
  EXPECT_NE(file.err.find("is above the limit of 16384"), std::string::npos) << file.err;
}

// run checks its baseline and every file of its folder before the sweep: nothing is measured first.
TEST_F(RobustOutput, RunChecksBaselineAndFolderBeforeMeasuring) {
  const std::string run_args = "run --backend mpi --host-ranks 1 -b 8 -e 1K --point-seconds 0.05 --no-plan --quiet";
  const std::string pred = path("pred.json");
  ASSERT_EQ(run("predict --plan " + plan("p.json") + " --link-gbps 10 --tflops 100 --json " + pred).status, 0);
  const Result bad_baseline = run(run_args + " --out " + path("rr3") + " --baseline " + pred);
  EXPECT_EQ(bad_baseline.status, 2) << bad_baseline.err;
  EXPECT_NE(bad_baseline.err.find("--baseline " + pred + ": a baseline is a results file"), std::string::npos)
      << bad_baseline.err;
  EXPECT_FALSE(std::filesystem::exists(path("rr3/results.json")));

  const std::string target = victim();
  std::filesystem::create_directories(path("o1"));
  make_link(target, "o1/summary.txt");
  const Result link = run(run_args + " --out " + path("o1"));
  EXPECT_EQ(link.status, 2) << link.err;
  EXPECT_EQ(own_lines(link.err), 1) << link.err;
  EXPECT_NE(link.err.find("--out " + path("o1/summary.txt") + ": a symbolic link"), std::string::npos) << link.err;
  EXPECT_FALSE(std::filesystem::exists(path("o1/results.json")));
  EXPECT_EQ(slurp(target), "VICTIM\n");

  // A run folder given as its own baseline would have its results replaced before they are compared.
  std::filesystem::create_directories(path("o2"));
  std::filesystem::copy_file(TEST_DATA_DIR "/nccl-tests/all_reduce_perf-2.19.json", path("o2/x.json"));
  const Result imported = run("import nccl-tests " + path("o2/x.json") + " --json " + path("o2/results.json"));
  ASSERT_EQ(imported.status, 0) << imported.err;
  std::filesystem::remove(path("o2/x.json"));
  const std::string before = slurp(path("o2/results.json"));
  const Result self = run(run_args + " --out " + path("o2") + " --baseline " + path("o2"));
  EXPECT_EQ(self.status, 2) << self.err;
  EXPECT_NE(self.err.find("the same file as the input --baseline"), std::string::npos) << self.err;
  EXPECT_EQ(slurp(path("o2/results.json")), before);
}

// A run folder that holds another run's files is refused before anything is measured, its files kept
// (new results are never reported with an old run's prediction, schedules and plots); a folder holding
// other files is used, and a second run into it is refused in turn.
TEST_F(RobustOutput, RunRefusesAFolderHoldingAnotherRunsFiles) {
  const std::string run_args = "run --backend mpi --host-ranks 1 -b 8 -e 64 --point-seconds 0.05 --no-plan --quiet";
  std::filesystem::create_directories(path("old"));
  write("old/prediction.json", "OLD PREDICTION\n");
  write("old/plot-8-schedules.svg", "<svg/>\n");
  const Result r = run(run_args + " --out " + path("old"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--out " + path("old") +
                       ": holds the files of another run (prediction.json, plot-8-schedules.svg); give a new or "
                       "empty folder, or remove them"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("out-of-place"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("old/results.json")));
  EXPECT_EQ(slurp(path("old/prediction.json")), "OLD PREDICTION\n");
  EXPECT_EQ(slurp(path("old/plot-8-schedules.svg")), "<svg/>\n");

  std::filesystem::create_directories(path("notes"));
  write("notes/README.txt", "mine\n");
  const Result first = run(run_args + " --out " + path("notes"));
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(slurp(path("notes/README.txt")), "mine\n");
  const std::string results = slurp(path("notes/results.json"));
  const Result second = run(run_args + " --out " + path("notes"));
  EXPECT_EQ(second.status, 2) << second.err;
  EXPECT_NE(second.err.find("holds the files of another run (results.json, results.csv, summary.txt and "),
            std::string::npos)
      << second.err;
  EXPECT_EQ(slurp(path("notes/results.json")), results);
}

// --jsonl appends only to an empty file or to JSON Lines records: a results JSON, a text file or a line
// cut short is refused before anything is measured and left as it was (lines appended after a results
// JSON would make it no JSON).
TEST_F(RobustOutput, JsonlAppendsOnlyToJsonLinesRecords) {
  const std::string results = path("r.json");
  ASSERT_EQ(run(std::string(kSmallBench) + " --json " + results).status, 0);
  for (const std::string& file :
       {results, write("notes.txt", "notes\n"), write("cut.jsonl", "{\"op\": \"all_reduce\"}\n{\"op\"")}) {
    const std::string kept = slurp(file);
    const Result r = run(std::string(kSmallBench) + " --jsonl " + file);
    EXPECT_EQ(r.status, 2) << file << "\n" << r.err;
    EXPECT_EQ(own_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("--jsonl " + file + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--jsonl appends only to an empty file or to JSON Lines records"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(file), kept);
  }
  EXPECT_TRUE(nlohmann::json::accept(slurp(results)));
  // Records after records: every line an object, the second run's after the first's.
  const std::string lines = path("r.jsonl");
  ASSERT_EQ(run(std::string(kSmallBench) + " --jsonl " + lines).status, 0);
  const std::size_t one_run = static_cast<std::size_t>(occurrences(slurp(lines), "\n"));
  ASSERT_GT(one_run, 0u);
  const Result again = run(std::string(kSmallBench) + " --jsonl " + lines);
  ASSERT_EQ(again.status, 0) << again.err;
  std::istringstream in(slurp(lines));
  std::size_t objects = 0;
  for (std::string l; std::getline(in, l);) objects += nlohmann::json::parse(l).is_object();
  EXPECT_EQ(objects, 2 * one_run);
}

// A full disk is one condition with one exit status: every output is refused at the start with one line
// and exit status 2, --jsonl too (not after the first point is measured, nor as "being written by another
// pipebench" where not even a lock file fits), and leaves no file. The disk
// is a 64 KiB tmpfs, filled whole or up to one block (room for a lock file, none for the output), in a
// mount namespace of the test's own (unshare -m, which needs root); where that cannot be made the test is
// skipped, saying why.
TEST_F(RobustOutput, AFullDiskIsExitStatus2ForEveryOutput) {
  const std::string full = path("full");
  std::filesystem::create_directories(full);
  const std::string mounted = "unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs " + full + " || exit 99; ";
  if (run_shell(mounted + "exit 0' 2>/dev/null").status != 0) {
    GTEST_SKIP() << "no tmpfs of the test's own: unshare -m and mount need root";
  }
  for (const std::string blocks : {"", " count=15"}) {
    for (const std::string flag : {"--json", "--csv", "--prometheus", "-J", "--jsonl"}) {
      const std::string what = flag + (blocks.empty() ? " (no block free)" : " (one block free)");
      const Result r = run_shell(mounted + "dd if=/dev/zero of=" + full + "/fill bs=4k" + blocks + " 2>/dev/null; " +
                                 PIPEBENCH_BIN + " " + kSmallBench + " " + flag + " " + full + "/out; rc=$?; test -e " +
                                 full + "/out && echo LEFT; exit $rc'");
      EXPECT_EQ(r.status, 2) << what << "\n" << r.err;
      EXPECT_EQ(own_lines(r.err), 1) << what << "\n" << r.err;
      EXPECT_EQ(r.err.find("pipebench: " + flag), 0u) << what << "\n" << r.err;
      EXPECT_NE(r.err.find(full + "/out: "), std::string::npos) << what << "\n" << r.err;
      EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << what << "\n" << r.err;
      EXPECT_EQ(r.out.find("LEFT"), std::string::npos) << what << ": a file was left";
    }
  }
}

// Shell words that wait (at most 120 s) until FILE exists and is not empty, and a second more: the
// command has started measuring.
std::string after_file(const std::string& file) {
  return "for i in $(seq 600); do [ -s " + file + " ] && break; sleep 0.2; done; sleep 1; ";
}

// Shell words that wait for $P, killing it after 20 s (a command that ignores the signal must fail the
// test, not hang it); the status is $P's.
std::string reap() {
  return "for i in $(seq 100); do kill -0 $P 2>/dev/null || break; sleep 0.2; done; kill -KILL $P 2>/dev/null; "
         "wait $P; ";
}

// `run` on `ranks` host ranks into DIR, sent SIG ("INT", "TERM") as soon as its first point is in
// results.csv (results.json is written before the first point), after at most 60 s of waiting for it. One
// rank's sweep to 64M ends within a second of its first point on a fast machine, so the signal could come
// after the whole run; to 256M it takes seconds more.
Result signalled_run(const std::string& dir, int ranks, const std::string& sig) {
  const std::string csv = dir + "/results.csv";
  return run_shell(
      "{ " + std::string(PIPEBENCH_BIN) + " run --backend mpi --host-ranks " + std::to_string(ranks) + " --out " + dir +
      " -b 8 -e 256M --point-seconds 2 --quiet & P=$!; for i in $(seq 1200); do [ \"$(wc -l < " + csv +
      " 2>/dev/null)\" -ge 2 ] 2>/dev/null && break; sleep 0.05; done; kill -" + sig + " $P; " + reap() + "}");
}

// SIGINT/SIGTERM: the sweep stops before its next point, the files and the table end as after a whole
// sweep, one line says what was saved, and the exit status is 128 + the signal.
TEST_F(RobustOutput, InterruptedSweepSaysWhatWasSavedAndExits128PlusTheSignal) {
  const std::string json = path("n0.json");
  const Result r = run_shell("{ " + std::string(PIPEBENCH_BIN) +
                             " bench --backend mpi -b 8 -e 64K -f 4 -n 5 --reps 3 -w 1 -N 0 --quiet --json " + json +
                             " & P=$!; " + after_file(json) + "kill -INT $P; " + reap() + "}");
  EXPECT_EQ(r.status, 130) << r.err;
  EXPECT_NE(r.err.find("pipebench: interrupted by SIGINT after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("every finished point is in " + json), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("# Out of bounds values"), std::string::npos) << "-N 0 keeps its footer";
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_GT(j["records"].size(), 0u);

  const std::string dir = path("runI");
  const Result run_term = signalled_run(dir, 1, "TERM");
  EXPECT_EQ(run_term.status, 143) << run_term.err;
  EXPECT_NE(run_term.err.find("pipebench: interrupted by SIGTERM"), std::string::npos) << run_term.err;
  const std::string summary = slurp(dir + "/summary.txt");
  EXPECT_NE(summary.find("# Summary (files in " + dir + ")"), std::string::npos) << summary;
  EXPECT_NE(summary.find("# Interrupted by SIGTERM"), std::string::npos) << summary;
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.html"));
}

// `run` without a GPU runs its ranks under mpirun, which ends them with SIGTERM whatever the user sent.
// `run` waits for mpirun (it does not become mpirun), the ranks get SIGUSR1 for the user's SIGINT, and the
// summary and the exit status say SIGINT, 130 (not "Interrupted by SIGTERM ... Exit status 143").
TEST_F(RobustOutput, RunOnHostRanksSaysAndExitsWithTheSignalTheUserSent) {
  const std::string dir = path("runH");
  const Result r = signalled_run(dir, 2, "INT");
  EXPECT_EQ(r.status, 130) << r.out << r.err;
  EXPECT_NE(r.err.find("pipebench: interrupted by SIGINT"), std::string::npos) << r.err;
  const std::string summary = slurp(dir + "/summary.txt");
  EXPECT_NE(summary.find("# Interrupted by SIGINT"), std::string::npos) << summary;
  EXPECT_NE(summary.find("# Exit status 130"), std::string::npos) << summary;
}

// A replay that dies leaves a file that says it is incomplete and names what it did not measure in full,
// and report warns about it: the file never claims iterations it did not measure.
TEST_F(RobustOutput, StoppedReplayLeavesAFileMarkedIncomplete) {
  const std::string p = plan("p.json");
  const std::string json = path("stopped.json");
  // Rank 0 sleeps before its third timed iteration, after two were written; SIGTERM then ends the job.
  const Result r =
      run_shell("{ PIPEBENCH_REPLAY_TEST_STALL=0:2:60 " + std::string(PIPEBENCH_BIN) + " replay --backend mpi --plan " +
                p + " --fwd-ms-per-layer 0.2 --iterations 5 --no-predict -T 0 --quiet --json " + json + " & P=$!; " +
                after_file(json) + "kill -TERM $P; " + reap() + "}");
  EXPECT_EQ(r.status, 143) << r.err;
  // Its own line, besides mpirun's: the signal and the file that keeps what was measured.
  EXPECT_NE(r.err.find("pipebench: replay ended by SIGTERM; every finished iteration is in " + json +
                       " (\"complete\": false)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(own_lines(r.err), 1) << r.err;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["complete"], false) << j.dump(2);
  ASSERT_FALSE(j["schedules_incomplete"].empty()) << j.dump(2);
  EXPECT_EQ(j["schedules_incomplete"][0], "1f1b") << j.dump(2);
  // report of that file warns with the built-in replay-complete check, naming what was not measured in full.
  const std::string out = path("stopped-report");
  const Result rep = run("report " + json + " --out " + out);
  EXPECT_EQ(rep.status, 0) << rep.err;
  EXPECT_NE(rep.out.find("report: WARN"), std::string::npos) << rep.out;
  const std::string md = slurp(out + "/report.md");
  EXPECT_NE(md.find("| replay-complete | WARN |"), std::string::npos) << md;
  EXPECT_NE(md.find("not measured in full: 1f1b"), std::string::npos) << md;
}

}  // namespace

namespace {

// Two runs writing one output at once: the second is refused before it writes anything (one line naming
// the flag, the file and the first run's process, exit 2), the first run's files keep its records only.
// A killed run's lock file holds no lock: the next run writes the file.
TEST_F(RobustOutput, SecondRunWritingTheSameOutputIsRefused) {
  const std::string json = path("same.json"), csv = path("same.csv"), nt = path("same.J.json");
  const std::string first = std::string(PIPEBENCH_BIN) +
                            " bench --backend mpi -b 8 -e 64K -f 4 -n 5 --reps 3 -w 1 -N 0 --quiet --json " + json +
                            " --csv " + csv + " -J " + nt + " >/dev/null";
  const std::string second = std::string(PIPEBENCH_BIN) + " " + kSmallBench + " --op all_gather";
  const Result r = run_shell("{ " + first + " & P=$!; " + after_file(json) + second + " --json " + json +
                             "; echo rc=$?; " + second + " --csv " + csv + "; echo rc=$?; " + second + " -J " + nt +
                             "; echo rc=$?; kill -KILL $P; " + reap() + "}");
  std::size_t refused = 0;  // -J is checked after the table's header is printed
  for (std::size_t at = r.out.find("rc=2\n"); at != std::string::npos; at = r.out.find("rc=2\n", at + 1)) ++refused;
  EXPECT_EQ(refused, 3u) << r.out << r.err;
  EXPECT_EQ(r.out.find("rc=0"), std::string::npos) << r.out;
  for (const auto& [flag, file] : {std::pair{"--json", json}, {"--csv", csv}, {"-J", nt}}) {
    EXPECT_NE(r.err.find(file + ": being written by another pipebench (process "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(flag), std::string::npos) << r.err;
  }
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_GT(j["records"].size(), 0u);
  for (const auto& rec : j["records"]) ASSERT_EQ(rec["op"], "all_reduce");  // nothing of the refused run
  // Two outputs of one run naming one file are told as such (not as another run's).
  const Result twice = run(std::string(kSmallBench) + " --json " + path("t.json") + " -J " + path("t.json"));
  EXPECT_EQ(twice.status, 2) << twice.err;
  EXPECT_NE(twice.err.find("the same file as --json"), std::string::npos) << twice.err;
  const Result after = run(std::string(kSmallBench) + " --json " + json + " --csv " + csv + " -J " + nt);
  EXPECT_EQ(after.status, 0) << after.err;
  EXPECT_FALSE(std::filesystem::exists(path(".same.json.lock")));  // removed when the writer ended
}

// A run refused on one output writes none of them: every output's lock is taken before the first file
// is created. Each output's lock is held here, as another run writing it would hold it, while the others
// hold a finished run's text that must stay.
TEST_F(RobustOutput, ARunRefusedOnOneOutputLeavesItsOtherOutputsUntouched) {
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"--json", path("o.json")}, {"--csv", path("o.csv")}, {"-J", path("o.J.json")}, {"--prometheus", path("o.prom")}};
  const auto lock_of = [this](const std::string& file) {
    return path("." + std::filesystem::path(file).filename().string() + ".lock");
  };
  std::string args = kSmallBench;
  for (const auto& [flag, file] : outputs) args += " " + flag + " " + file;
  for (const auto& [held_flag, held] : outputs) {
    for (const auto& [flag, file] : outputs) write(std::filesystem::path(file).filename().string(), "FINISHED\n");
    const std::string lock = lock_of(held);
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    ASSERT_GE(fd, 0) << lock;
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << lock;
    const Result r = run(args);
    ::close(fd);
    std::filesystem::remove(lock);
    EXPECT_EQ(r.status, 2) << held_flag << "\n" << r.err;
    EXPECT_EQ(occurrences(r.err, "being written by another pipebench"), 1) << held_flag << "\n" << r.err;
    EXPECT_NE(r.err.find(held_flag + " " + held + ": being written by another pipebench"), std::string::npos)
        << held_flag << "\n"
        << r.err;
    for (const auto& [flag, file] : outputs) EXPECT_EQ(slurp(file), "FINISHED\n") << held_flag << " held: " << flag;
    for (const auto& [flag, file] : outputs) {
      if (file != held) {
        EXPECT_FALSE(std::filesystem::exists(lock_of(file))) << held_flag << " held: " << flag << "'s lock left";
      }
    }
  }
}

// bench -J FILE -N 0 streams its rows: a run killed with SIGKILL leaves valid nccl-tests JSON with every
// finished row and no footer; SIGINT ends it with the footer. Rows are appended, never the file rewritten
// whole per row (memory and time per row would grow with the run).
TEST_F(RobustOutput, EndlessRunLeavesValidNcclTestsJsonWhenStopped) {
  const std::string endless =
      std::string(PIPEBENCH_BIN) + " bench --backend mpi -b 8 -e 64K -f 4 -n 5 --reps 3 -w 1 -N 0 --quiet -J ";
  for (const std::string signal : {"KILL", "INT"}) {
    const std::string nt = path("endless-" + signal + ".json");
    const Result r = run_shell("{ " + endless + nt + " >/dev/null & P=$!; " + after_file(nt) + "kill -" + signal +
                               " $P; " + reap() + "}");
    EXPECT_EQ(r.status, signal == "KILL" ? 137 : 130) << r.err;
    const auto doc = nlohmann::json::parse(slurp(nt));  // throws (fails the test) unless valid JSON
    const auto& rows = doc["results"];
    ASSERT_GT(rows.size(), 0u) << signal;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      ASSERT_TRUE(row["out_of_place"].is_object()) << signal << " row " << i;
      // A row is written with both placements; SIGINT between a size's two halves ends the run with the
      // half it measured (in_place null, nccl-tests' "not measured"), SIGKILL there loses that half row.
      const bool last_half = signal == "INT" && i + 1 == rows.size() && row["in_place"].is_null();
      ASSERT_TRUE(row["in_place"].is_object() || last_half) << signal << " row " << i << ": " << row.dump();
      ASSERT_EQ(row["experiment_name"], "all_reduce_perf");
    }
    EXPECT_EQ(doc.contains("end_time"), signal == "INT") << signal;
  }
}

}  // namespace
