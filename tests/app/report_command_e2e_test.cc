// SPDX-License-Identifier: Apache-2.0
// `pipebench report --make-baseline` of three nodes' results, then `report --baseline` of a slower fourth:
// the regression is named and the report fails (exit 3); bad baseline input is one line and exit 2.
#include <gtest/gtest.h>

#include <string>

#include "cli/run_pipebench.h"
#include "cli/temp_folder.h"
#include "io/results_io.h"
#include "report/report_fixture.h"

namespace pipebench {
namespace {

class ReportBaselineE2e : public e2e::TempFolder {
 protected:
  // A results file of `host` whose all_reduce reaches `peak_gbps` at 1 MiB (report_fixture.h's sizes).
  std::string results(const std::string& host, double peak_gbps) const {
    InputFile<ResultSet> in = testing::make_host(host, peak_gbps);
    in.doc.created_utc = "2026-12-03T10:00:00Z";
    nlohmann::json doc = results_header(in.doc);
    for (const auto& r : in.doc.records) doc["records"].push_back(record_to_json(r));
    return write(host + ".json", doc.dump());
  }
};

TEST_F(ReportBaselineE2e, SlowerNodeAgainstAFleetBaseline) {
  const std::string base = path("fleet.json");
  const std::string make =
      "report --make-baseline " + base + " " + results("n1", 400) + " " + results("n2", 410) + " " + results("n3", 390);
  const auto made = e2e::run(make);
  ASSERT_EQ(made.status, 0) << make << "\n" << made.err;
  EXPECT_NE(made.out.find("baseline: 6 points from 3 results files"), std::string::npos) << made.out;

  const std::string out = path("ok");
  const auto same = e2e::run("report --baseline " + base + " --out " + out + " " + results("n4", 405));
  EXPECT_EQ(same.status, 0) << same.out << same.err;

  const auto slow = e2e::run("report --baseline " + base + " --out " + out + " " + results("slow", 300));
  EXPECT_EQ(slow.status, 3) << slow.out << slow.err;
  const std::string md = e2e::slurp(out + "/report.md");
  EXPECT_NE(md.find("fleet-baseline"), std::string::npos) << md;
  EXPECT_NE(md.find("on host slow"), std::string::npos) << md;
}

TEST_F(ReportBaselineE2e, BadBaselineInputIsOneLine) {
  const std::string r = results("n1", 400);
  const std::string bad = write("bad.json", R"({"schema": "pipebench.baseline/1", "points": [{"op": "all_reduce"}]})");
  const auto broken = e2e::run("report --baseline " + bad + " --out " + path("o") + " " + r);
  EXPECT_EQ(broken.status, 2);
  EXPECT_NE(broken.err.find("--baseline " + bad + ": \"points[0].dtype\" is missing"), std::string::npos) << broken.err;
  const auto both = e2e::run("report --make-baseline " + bad + " --baseline " + bad + " " + r);
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--make-baseline: cannot be combined with --baseline"), std::string::npos) << both.err;
  const auto onto_input = e2e::run("report --make-baseline " + r + " " + r);
  EXPECT_EQ(onto_input.status, 2);
  EXPECT_NE(onto_input.err.find("--make-baseline"), std::string::npos) << onto_input.err;
}

}  // namespace
}  // namespace pipebench
