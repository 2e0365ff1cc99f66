// SPDX-License-Identifier: Apache-2.0
// `pipebench import nccl-tests`, and its files (or the logs themselves) in predict --table and report.
#include "app/import_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/report_inputs.h"
#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"
#include "core/error.h"
#include "io/input_views.h"
#include "io/results_io.h"

namespace pipebench {
namespace {

std::string fixture(const std::string& name) { return std::string(TEST_DATA_DIR) + "/nccl-tests/" + name; }

class ImportCommand : public e2e::TempFolder {
 protected:
  int run_import(ImportOptions o) {
    out_.str("");
    err_.str("");
    o.source = o.source.empty() ? "nccl-tests" : o.source;
    return run_import_command(o, out_, err_);
  }
  std::ostringstream out_, err_;
};

TEST_F(ImportCommand, WritesOneResultsFileOfEveryTestAndSaysWhatItRead) {
  ImportOptions o;
  o.files = {fixture("all_reduce_perf-2.19.log"), fixture("sendrecv_perf-2.19.log")};
  o.json_path = path("imported.json");
  ASSERT_EQ(run_import(o), 0);
  EXPECT_NE(out_.str().find("all_reduce (text, nccl-tests 2.19.6), 8 ranks on h200-node1 (NVIDIA H200), 14 rows"),
            std::string::npos)
      << out_.str();
  EXPECT_NE(out_.str().find("wrote " + o.json_path + ": 56 records"), std::string::npos) << out_.str();
  EXPECT_EQ(err_.str(), "");
  const ResultSet rs = load_results("--table", o.json_path);
  EXPECT_EQ(rs.source, "nccl-tests");
  EXPECT_EQ(rs.records.size(), 56u);
  EXPECT_EQ(rs.records.back().op, "sendrecv");
  EXPECT_EQ(rs.system.gpu_models, std::vector<std::string>{"NVIDIA H200"});
}

TEST_F(ImportCommand, DamagedLogsImportWhatIsWholeAndNameEachKindOfSkip) {
  ImportOptions o;
  o.files = {fixture("all_reduce_perf-damaged.log"), fixture("all_reduce_perf-truncated.json")};
  o.json_path = path("damaged.json");
  ASSERT_EQ(run_import(o), 0);
  const std::string err = err_.str();
  EXPECT_NE(err.find("all_reduce_perf-damaged.log: skipped 1 table rows cut short\n"), std::string::npos) << err;
  EXPECT_NE(err.find("all_reduce_perf-damaged.log: skipped 1 table rows with a value that is not a number\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("all_reduce_perf-truncated.json: skipped 1 JSON files cut short"), std::string::npos) << err;
  EXPECT_NE(out_.str().find("(the log ends before its footer)"), std::string::npos);
  EXPECT_EQ(load_results("--table", o.json_path).records.size(), 24u);  // 7 + 5 whole rows, two placements
}

TEST_F(ImportCommand, NothingWholeIsExitStatusTwoAndNoFile) {
  const std::string junk = write("junk.log", "# nThread 1 nGpus 1\n   8   2   float\nhello\n");
  ImportOptions o;
  o.files = {junk};
  o.json_path = path("none.json");
  try {
    (void)run_import(o);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no whole table row"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(o.json_path));
  EXPECT_NE(err_.str().find("junk.log: skipped 1 lines that are not nccl-tests output"), std::string::npos);
}

TEST_F(ImportCommand, BadArgumentsNameTheFlagOrFile) {
  ImportOptions o;
  o.source = "rccl-tests";
  o.files = {fixture("all_reduce_perf-2.19.log")};
  EXPECT_THROW((void)run_import(o), UsageError);
  o.source = "nccl-tests";
  o.files = {path("missing.log")};
  EXPECT_THROW((void)run_import(o), UsageError);
  o.files = {dir_.string()};  // a folder, not a regular file
  EXPECT_THROW((void)run_import(o), UsageError);
  o.files = {fixture("all_gather_perf-2.13.log")};
  o.op = "allgatherv";
  EXPECT_THROW((void)run_import(o), UsageError);
  o.op = "";
  o.json_path = dir_.string();  // an output that is a folder
  EXPECT_THROW((void)run_import(o), UsageError);
}

// A log given without its format is named as what it is, not as a missing FILE.
TEST_F(ImportCommand, ALogGivenWithoutItsFormatIsNamed) {
  const std::string log = fixture("all_reduce_perf-2.19.log");
  const auto alone = e2e::run("import " + log);
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, "pipebench: import: '" + log +
                           "' is not a format (the one format is nccl-tests); usage: pipebench import nccl-tests "
                           "FILE... [flags] (pipebench import --help)\n");
  const auto no_file = e2e::run("import nccl-tests");
  EXPECT_EQ(no_file.status, 2);
  EXPECT_NE(no_file.err.find("pipebench: import nccl-tests: no FILE given; usage: "), std::string::npos) << no_file.err;
}

TEST_F(ImportCommand, ReportReadsImportsAndLogsAlike) {
  ImportOptions o;
  o.files = {fixture("reduce_perf-2021.log")};
  o.json_path = path("reduce.json");
  ASSERT_EQ(run_import(o), 0);
  const ReportInputs imported = load_report_inputs({o.json_path}, "");
  const ReportInputs direct = load_report_inputs({fixture("reduce_perf-2021.log")}, "");
  ASSERT_EQ(imported.results.size(), 1u);
  ASSERT_EQ(direct.results.size(), 1u);
  EXPECT_EQ(imported.results[0].doc.records.size(), 16u);
  EXPECT_EQ(direct.results[0].doc.records.size(), 16u);
  EXPECT_EQ(host_of(direct.results[0]), "v100box");
  ASSERT_NE(device_of_rank(direct.results[0].doc, 2), nullptr);
  EXPECT_EQ(device_of_rank(direct.results[0].doc, 2)->bus_id, "0000:3d:00.0");
  // A text file that is not a log is still refused, naming it.
  const std::string notes = write("notes.txt", "all_reduce was fast\n");
  try {
    (void)load_report_inputs({notes}, "");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("INPUT " + notes + ": not JSON"), std::string::npos) << e.what();
  }
}

// A log from before nccl-tests 2.17.4 names no binary; in a file named without the op ("seed.log") its op is
// unknown. import, report and predict --table name the rows left out and why alike (never "not JSON" of a
// valid log), and report and predict take the op as LOG:OP.
TEST_F(ImportCommand, AnOplessLogIsNamedAlikeAndTakesItsOpAsLogColonOp) {
  const std::string log = write("seed.log", e2e::slurp(fixture("all_reduce_perf-8x3090-seed.log")));
  const std::string why = "skipped 25 table rows of a test that does not name its op (logs before 2.17.4: ";
  const std::string give = "give it as " + log + ":OP, e.g. " + log + ":all_reduce)";
  const auto report = e2e::run("report " + log + " --out " + path("r1"));
  EXPECT_EQ(report.status, 2);
  EXPECT_EQ(report.err, "pipebench: INPUT " + log + ": nccl-tests output with no row read: " + why + give + "\n");
  const std::string plan = path("plan.json");
  ASSERT_EQ(e2e::run("plan --json " + plan +
                     " -- --num-layers 8 --hidden-size 1024 --num-attention-heads 8 --seq-length 1024 "
                     "--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 16 "
                     "--pipeline-model-parallel-size 8 --world-size 8 --vocab-size 1000 --bf16")
                .status,
            0);
  const auto predict = e2e::run("predict --plan " + plan + " --table " + log + " --fwd-ms-per-layer 1");
  EXPECT_EQ(predict.status, 2);
  EXPECT_EQ(predict.err, "pipebench: --table " + log + ": nccl-tests output with no row read: " + why + give + "\n");
  // Given as LOG:OP, both read it: the report judges it (the seed's node fails against its GPUs' bus).
  const auto named = e2e::run("report " + log + ":all_reduce --out " + path("r2"));
  EXPECT_EQ(named.status, 3) << named.err;
  EXPECT_EQ(named.out.rfind("report: FAIL on 4 of 6 rules", 0), 0u) << named.out;
  const auto costs = e2e::run("predict --plan " + plan + " --table " + log + ":all_reduce --fwd-ms-per-layer 1");
  EXPECT_EQ(costs.status, 0) << costs.err;
  EXPECT_NE(costs.out.find("derived from nccl-tests all_reduce on 8 ranks"), std::string::npos) << costs.out;
  const auto imported = e2e::run("import nccl-tests " + log);
  EXPECT_EQ(imported.status, 2);
  EXPECT_NE(imported.err.find(log + ": " + why + "give --op)"), std::string::npos) << imported.err;
  // An op that is none is one line naming the argument.
  const auto typo = e2e::run("report " + log + ":allreduc --out " + path("r3"));
  EXPECT_EQ(typo.status, 2);
  EXPECT_EQ(
      typo.err.rfind("pipebench: INPUT " + log + ":allreduc: 'allreduc' after the ':' is not an nccl-tests op (", 0),
      0u)
      << typo.err;
}

TEST_F(ImportCommand, PredictFromAnAllReduceTableMarksTheDerivedCosts) {
  const std::string plan = path("plan.json"), imported = path("ar.json"), pred = path("pred.json");
  const auto p = e2e::run(
      "plan --json " + plan +
      " -- --num-layers 8 --hidden-size 1024 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
      "--micro-batch-size 1 --global-batch-size 16 --tensor-model-parallel-size 2 "
      "--pipeline-model-parallel-size 4 --world-size 8 --vocab-size 1000 --bf16");
  ASSERT_EQ(p.status, 0) << p.err;
  const auto i = e2e::run("import nccl-tests " + fixture("all_reduce_perf-2.19.log") + " --json " + imported);
  ASSERT_EQ(i.status, 0) << i.err;
  for (const std::string& table : {imported, fixture("all_reduce_perf-2.19.log")}) {
    const auto r = e2e::run("predict --plan " + plan + " --table " + table + " --fwd-ms-per-layer 1 --json " + pred);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# communication: derived from nccl-tests all_reduce on 8 ranks"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("derived from nccl-tests all_reduce"), r.out.rfind("derived from nccl-tests all_reduce"))
        << "marked in the header and the cost sources";
    const auto j = nlohmann::json::parse(e2e::slurp(pred));
    bool derived = false;
    for (const auto& s : j.at("cost_source")) derived = derived || s == "derived from nccl-tests all_reduce";
    EXPECT_TRUE(derived) << j.at("cost_source").dump();
  }
  const auto with_sendrecv = path("both.json");
  ASSERT_EQ(e2e::run("import nccl-tests " + fixture("all_reduce_perf-2.19.log") + " " +
                     fixture("sendrecv_perf-2.19.log") + " --json " + with_sendrecv)
                .status,
            0);
  const auto r = e2e::run("predict --plan " + plan + " --table " + with_sendrecv + " --fwd-ms-per-layer 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("P2P from its sendrecv table"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# cost sources:"), std::string::npos);
  EXPECT_NE(r.out.find("nccl-tests sendrecv"), std::string::npos) << r.out;
  const auto bad = e2e::run("predict --plan " + plan + " --table " + imported + " --class-fallback");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--class-fallback"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace pipebench
