// SPDX-License-Identifier: Apache-2.0
// predict's text for a small hand-made prediction: the preamble (cost source and how transfers share
// links), the schedule table, the memory note of a schedule that splits B and W beside 1F1B's, the rank
// breakdown and the verdict.
#include "report/prediction_report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace pipebench {
namespace {

Prediction small_prediction() {
  Prediction p;
  p.compute_source = "--fwd-ms-per-layer";
  p.fwd_ms_per_layer = 1;
  p.bwd_ms_per_layer = 2;
  p.w_share = 0.5;
  SchedulePrediction base;
  base.iteration_ms = 100;
  base.ranks = {{0, 60, 10, 30, 0.25, 4096}};
  SchedulePrediction zb;
  zb.id.name = "zb-h1";
  zb.reference = true;
  zb.iteration_ms = 80;
  zb.speedup = 1.25;
  zb.activations_held = {4, 3};
  p.schedules = {base, zb};
  p.cost_sources = {"assumed"};
  p.verdict = "zb-h1 is fastest";
  return p;
}

std::string text(const std::string& costs, bool shared_path, std::optional<std::size_t> topology_links,
                 double comm_sm_slowdown) {
  std::ostringstream out;
  print_prediction(out, "p.json", costs, shared_path, topology_links, comm_sm_slowdown, small_prediction(), {3, 2});
  return out.str();
}

TEST(PredictionReport, PreambleNamesPlanCostsAndLinks) {
  const std::string one_link = text("assumed: every link 2 GB/s", false, std::nullopt, 0.2);
  EXPECT_EQ(one_link.rfind("# prediction for p.json\n"
                           "# communication: assumed: every link 2 GB/s; one link per directed pair\n"
                           "# compute: forward 1.0000 ms, backward 2.0000 ms per layer and microbatch "
                           "(--fwd-ms-per-layer)\n"
                           "# NCCL kernels slow overlapped compute by a factor 1.20 (--comm-sm-slowdown)\n#\n",
                           0),
            0u)
      << one_link;
  EXPECT_NE(text("t.json", false, 7, 0)
                .find("; transfers share the PCIe/NVLink links of their topology "
                      "paths (7 links)\n"),
            std::string::npos);
  // --shared-path wins over the topology's links.
  EXPECT_NE(text("t.json", true, 7, 0).find("# communication: t.json; every pipeline pair shares one path\n"),
            std::string::npos);
}

TEST(PredictionReport, MemoryNoteOfSplitScheduleBeside1F1B) {
  const std::string t = text("c", false, std::nullopt, 0);
  EXPECT_NE(t.find("   zb-h1 (reference)              80.000      1.250         0.0000       0.0000\n"
                   "# B/W split: W is 0.50 of the backward (--w-share)\n"
                   "# activations held at the peak, microbatches per pipeline rank: 1f1b 3 2\n"
                   "#   zb-h1 4 3\n#\n# 1f1b per rank"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("   rank 0         60.000     10.000     30.000   nccl  0.25           4096\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("\n# cost sources: assumed\n# verdict: zb-h1 is fastest\n"), std::string::npos) << t;
}

// The steady state beside the cold iteration where they differ (more than 0.05 %), blank where they do not, and
// the line that says what was compared and names each schedule's step rule; a table where nothing differs keeps
// its one column of iterations.
TEST(PredictionReport, SteadyStateBesideTheColdIterationWhereTheyDiffer) {
  Prediction p = small_prediction();
  p.schedules[0].steady_ms = 100;
  p.schedules[1].steady_ms = 80.03;  // 0.04 %: not shown
  p.schedules[1].step_rule = StepRule::kPostValidation;
  std::ostringstream same;
  print_schedule_table(same, p, true);
  EXPECT_EQ(same.str(),
            std::string(
                "#  schedule              iteration (ms)   speed-up   bubble ideal   bubble sim\n"
                "   1f1b" +
                std::string(26, ' ') +
                "100.000      1.000         0.0000       0.0000\n"
                "   zb-h1 (reference)              80.000      1.250         0.0000       0.0000\n"
                "# iterations: 3 back to back with the optimizer step between them; iteration: the first, from a cold "
                "start; steady state: the last, from the end of the one before on the rank that ends it last (here the "
                "same as the cold one for every schedule); speed-ups of the steady-state iteration; synchronous step: "
                "1f1b; post-validation: zb-h1\n"))
      << same.str();
  p.schedules[1].steady_ms = 72;
  std::ostringstream differ;
  print_schedule_table(differ, p, true);
  EXPECT_NE(differ.str().find("#  schedule              iteration (ms)    steady (ms)   speed-up"), std::string::npos)
      << differ.str();
  EXPECT_NE(differ.str().find("   zb-h1 (reference)              80.000         72.000      1.250"), std::string::npos)
      << differ.str();
  EXPECT_NE(differ.str().find("   1f1b" + std::string(26, ' ') + "100.000" + std::string(21, ' ') + "1.000"),
            std::string::npos)
      << differ.str();
  EXPECT_NE(differ.str().find("on the rank that ends it last; speed-ups of the steady-state iteration;"),
            std::string::npos)
      << differ.str();
  // A prediction read from a file written before the steady state was recorded: no such line.
  for (auto& s : p.schedules) s.steady_ms = 0;
  std::ostringstream old;
  print_schedule_table(old, p, true);
  EXPECT_EQ(old.str().find("# iterations:"), std::string::npos) << old.str();
}

}  // namespace
}  // namespace pipebench
