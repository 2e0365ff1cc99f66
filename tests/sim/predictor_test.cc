// SPDX-License-Identifier: Apache-2.0
// predict on plans: closed forms with free communication, measured tables, verdicts, traces, bad input.
#include "sim/predictor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/registry.h"
#include "core/error.h"
#include "io/chrome_trace_text.h"
#include "io/plan_io.h"
#include "io/prediction_io.h"
#include "io/results_io.h"
#include "megatron/plan.h"
#include "schedule/activation_memory.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"
#include "sim/model_error.h"
#include "sim/schedule_build.h"

namespace pipebench {
namespace {

// The registry's op of this name, as the cost models take it.
const Op& op_named(std::string_view name) { return OpRegistry::instance().find("op", name); }

// The plan as predict reads it: written to its JSON and read back.
Plan plan_json(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return plan_from_json(plan_to_json(make_plan(parse_megatron_args(w), 0)), "test plan");
}

// The measured cost model of a results file's JSON, as predict --table builds it.
MeasuredCost measured_of(const nlohmann::json& results, const std::string& path) {
  const ResultSet rs = results_from_json(results, "--table " + path);
  return MeasuredCost(rs.records, place_ranks(rs), path);
}

Prediction predict_with(const Plan& plan, const CostModel& costs, const ComputeOptions& c, bool shared_path,
                        bool keep_trace, const std::string& filter, const PathModel* paths = nullptr) {
  return predict(plan, costs, make_compute_model(plan, c), shared_path, keep_trace, filter, paths);
}

const char* kModel =
    "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
    "--micro-batch-size 1 "
    "--global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 --world-size 4 "
    "--untie-embeddings-and-output-weights";

TEST(Predictor, FreeCommunicationGivesTheBubbleClosedForms) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  c.bwd_ms_per_layer = 2;
  const Prediction p = predict_with(plan, ZeroCost{}, c, false, false, "");
  ASSERT_GE(p.schedules.size(), 2u);
  const double tf = 4 * 1.0, tb = 4 * 2.0;  // 4 layers per stage
  const double m = 8, pp = 4;
  // The last stage also runs the output layer (2 b s h V FLOPs forward, 2x backward) at the layer's
  // rate, once per microbatch on the critical path.
  const double h = 1024, s_len = 256, V = 1024, f = 4 * h;
  const double layer = 2 * s_len * (4 * h * h + 2 * h * f) + 4 * s_len * s_len * h;
  const double extra = m * 3 * (2 * s_len * h * V) / layer * 1.0;
  EXPECT_NEAR(p.schedules[0].iteration_ms, (m + pp - 1) * (tf + tb) + extra, 1e-3);
  for (const auto& sch : p.schedules) {
    if (sch.id.name == "interleaved") {  // the zero-bubble references of v > 1 follow their own forms
      EXPECT_NEAR(sch.iteration_ms, (m + (pp - 1) / sch.id.v) * (tf + tb) + extra, 1e-3) << "v " << sch.id.v;
    }
  }
  EXPECT_NE(p.best, "1f1b");
  EXPECT_EQ(p.cost_sources, std::vector<std::string>{"zero"});
}

// The steady state: Megatron's schedules take the synchronous step, so each of their iterations repeats the cold
// one (steady == cold, and their speed-ups are those of the cold iterations); the zero-bubble references take the
// paper's post-validation, where ZB-H2's ranks overlap iterations and its steady state is shorter than its cold
// iteration. The speed-ups and the verdict compare the steady state unless asked for the cold one. Tied
// embeddings would hold rank 0 to the last rank through the word-embedding all-reduce; this model unties them.
TEST(Predictor, TheSteadyStateIsTheColdIterationUnlessIterationsOverlap) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  c.bwd_ms_per_layer = 2;
  c.optimizer_ms = 3;
  const AssumedCost link(5, 10);
  const Prediction p = predict_with(plan, link, c, false, false, "");
  const auto find = [&p](const std::string& key) {
    for (const auto& s : p.schedules) {
      if (s.id.key() == key) return s;
    }
    ADD_FAILURE() << key;
    return SchedulePrediction{};
  };
  for (const auto& s : p.schedules) {
    ASSERT_GT(s.steady_ms, 0) << s.id.key();
    EXPECT_LE(s.steady_ms, s.iteration_ms * (1 + 1e-12)) << s.id.key();
    const bool zero_bubble = schedule_generator(s.id).splits_backward();
    EXPECT_EQ(s.step_rule, zero_bubble ? StepRule::kPostValidation : StepRule::kSynchronous) << s.id.key();
    if (!zero_bubble) {
      EXPECT_DOUBLE_EQ(s.steady_ms, s.iteration_ms) << s.id.key();
    }
  }
  const SchedulePrediction base = find("1f1b"), h2 = find("zb-h2");
  EXPECT_LT(h2.steady_ms, 0.95 * h2.iteration_ms);
  EXPECT_DOUBLE_EQ(h2.speedup, base.steady_ms / h2.steady_ms);
  EXPECT_NE(p.verdict.find("it compares steady-state iterations (the last of 3 back to back)"), std::string::npos)
      << p.verdict;
  const Prediction cold = predict(plan, link, make_compute_model(plan, c), false, false, "", nullptr, {}, {}, true);
  EXPECT_TRUE(cold.compares_cold);
  for (const auto& s : cold.schedules) {
    EXPECT_DOUBLE_EQ(s.speedup, base.iteration_ms / s.iteration_ms) << s.id.key();
    EXPECT_DOUBLE_EQ(s.steady_ms, find(s.id.key()).steady_ms) << s.id.key();
  }
  EXPECT_NE(cold.verdict.find("it compares cold iterations"), std::string::npos) << cold.verdict;
}

// One pipeline rank: no iteration overlaps another, so every schedule's steady state is its cold iteration.
TEST(Predictor, OnePipelineRanksSteadyStateIsItsColdIteration) {
  std::string args = kModel;
  args.replace(args.find("--pipeline-model-parallel-size 4"), 32, "--pipeline-model-parallel-size 1");
  args.replace(args.find("--world-size 4"), 14, "--world-size 1");
  const auto plan = plan_json(args);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  c.optimizer_ms = 2;
  const Prediction p = predict_with(plan, AssumedCost(5, 10), c, false, false, "");
  ASSERT_FALSE(p.schedules.empty());
  for (const auto& s : p.schedules) EXPECT_DOUBLE_EQ(s.steady_ms, s.iteration_ms) << s.id.key();
}

// A reference schedule past the simulation's task limit is left out of "every schedule" with a note the
// console and the JSON carry, instead of failing the prediction of Megatron's own schedules; asked for by
// name it is the error. p 16, v 2, 10240 microbatches: 1F1B and interleaved (4 tasks per step) fit in 2^21,
// the schedules that split B and W (7 per step) fit with one chunk per rank but not with two.
// Each schedule's per-rank summary (what the prediction file keeps of the simulation) is its simulation's,
// in ms and shares of the iteration, on the global ranks of the first pipeline group.
TEST(Predictor, PerRankSummaryIsTheSimulationsOnTheGlobalRanks) {
  std::string args = kModel;
  args.replace(args.find("--world-size 4"), 14, "--world-size 8 --tensor-model-parallel-size 2");
  const auto plan = plan_json(args);
  ASSERT_EQ(plan.layout.pp_groups[0], (std::vector<int>{0, 2, 4, 6}));
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction p = predict_with(plan, AssumedCost(20, 5), c, false, false, "");
  ASSERT_FALSE(p.schedules.empty());
  for (const SchedulePrediction& s : p.schedules) {
    ASSERT_EQ(s.ranks.size(), 4u) << s.id.key();
    const double it = static_cast<double>(s.sim.iteration);
    for (std::size_t r = 0; r < 4; ++r) {
      const RankResult& sim = s.sim.ranks[r];
      EXPECT_EQ(s.ranks[r].rank, plan.layout.pp_groups[0][r]);
      EXPECT_DOUBLE_EQ(s.ranks[r].compute_ms, static_cast<double>(sim.compute) / 1e6);
      EXPECT_DOUBLE_EQ(s.ranks[r].exposed_comm_ms, static_cast<double>(sim.blocked) / 1e6);
      EXPECT_DOUBLE_EQ(s.ranks[r].idle_ms, (it - static_cast<double>(sim.compute + sim.blocked)) / 1e6);
      EXPECT_DOUBLE_EQ(s.ranks[r].nccl_share, static_cast<double>(sim.comm_busy) / it);
      EXPECT_EQ(s.ranks[r].p2p_bytes, sim.p2p_bytes_out);
    }
  }
}

// The memory note of each schedule that splits B and W, counted while predict generates it, is what the
// schedule's generator gives for the plan's Megatron shape; the schedules that do not split have none.
TEST(Predictor, MemoryNotesAreTheGeneratorsPeakActivations) {
  for (const char* extra : {"", " --num-layers-per-virtual-pipeline-stage 2"}) {
    const Plan plan = plan_json(std::string(kModel) + extra);
    ComputeOptions c;
    c.fwd_ms_per_layer = 1;
    const Prediction p = predict_with(plan, AssumedCost(20, 5), c, false, false, "");
    int noted = 0;
    for (const auto& s : p.schedules) {
      const ScheduleGenerator& g = schedule_generator(s.id);
      if (!g.splits_backward()) {
        EXPECT_TRUE(s.activations_held.empty()) << s.id.key();
        continue;
      }
      ++noted;
      ScheduleShape shape = megatron_shape(plan.args, plan.layout, s.id);
      if (s.id.name == "zb-2p") {
        // Planned from the passes' times: the order of the build's shape, a reference on 1F1B's messages.
        Schedule ref = plan.schedules.front();
        ref.id = s.id;
        shape = build_schedule(plan, ref, make_compute_model(plan, c), ZeroCost{}, false).spec.shape;
        EXPECT_EQ(shape.pass_ns.size(), 4u);
      }
      EXPECT_EQ(s.activations_held, peak_activations(g, shape)) << s.id.key();
    }
    EXPECT_GE(noted, 2) << extra;
  }
}

TEST(Predictor, AReferencePastTheTaskLimitIsLeftOutWithANote) {
  const auto plan = plan_json(
      "--num-layers 32 --hidden-size 64 --num-attention-heads 4 --seq-length 16 --max-position-embeddings 16 "
      "--micro-batch-size 1 --global-batch-size 10240 --pipeline-model-parallel-size 16 --vocab-size 100 "
      "--num-layers-per-virtual-pipeline-stage 1");
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.1;
  Schedule zb = plan.schedules.back();
  ASSERT_EQ(zb.id.v, 2);
  EXPECT_EQ(task_limit_problem(plan, zb), "");
  zb.id.name = "interleaved-zb";
  EXPECT_NE(task_limit_problem(plan, zb).find("needs more than 2097152 simulated tasks"), std::string::npos);
  const Prediction p = predict_with(plan, AssumedCost(20, 5), c, false, false, "");
  std::set<std::string> keys;
  for (const auto& s : p.schedules) keys.insert(s.id.key());
  EXPECT_EQ(keys, (std::set<std::string>{"1f1b", "interleaved:v2", "gpipe", "zb-2p", "zb-h1", "zb-h2"}));
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_EQ(p.notes[0].rfind("interleaved-zb:v2 left out: schedule interleaved-zb (p 16, v 2, 10240 microbatches)", 0),
            0u)
      << p.notes[0];
  EXPECT_EQ(p.notes[1].rfind("zbv:v2 left out: ", 0), 0u) << p.notes[1];
  EXPECT_THROW((void)predict_with(plan, AssumedCost(20, 5), c, false, false, "interleaved-zb"), UsageError);
}

TEST(Predictor, ASlowLinkMakesOneFOneBWinAndNamesThePair) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.05;
  const Prediction slow = predict_with(plan, AssumedCost(0.5, 50), c, true, false, "");
  EXPECT_EQ(slow.best, "1f1b");
  EXPECT_EQ(slow.deciding_pair.size(), 2u);
  const Prediction fast = predict_with(plan, AssumedCost(400, 2), c, false, false, "");
  EXPECT_NE(fast.best, "1f1b");
  ASSERT_FALSE(fast.break_even_gbps.empty());
  EXPECT_TRUE(fast.break_even_gbps[0].second.has_value());
}

// The break-even bandwidth answers some links of its bisection without simulating them (equal P2P times,
// or links beyond ones already decided); it must still be the bisection of the simulated iterations, link
// by link: the plain search, each link simulated (1e-3 to 1e5 GB/s, 24 steps on log scale), gives the
// very same number.
TEST(Predictor, BreakEvenIsTheBisectionOfEverySimulatedLink) {
  const auto plan = plan_json(kModel);
  int bisected = 0;
  for (const double fwd_ms : {0.05, 0.4}) {
    for (const bool shared : {false, true}) {
      ComputeOptions c;
      c.fwd_ms_per_layer = fwd_ms;
      const Prediction p = predict_with(plan, AssumedCost(20, 5), c, shared, false, "");
      ASSERT_FALSE(p.break_even_gbps.empty());
      for (const auto& [v_of, gbps] : p.break_even_gbps) {
        const int v = v_of;  // C++17 lambdas cannot capture a structured binding
        const auto iteration = [&](double link_gbps, const std::string& filter) {
          return predict_with(plan, AssumedCost(link_gbps, 0), c, shared, false, filter).schedules.at(0).iteration_ms;
        };
        const auto wins = [&](double g) {
          return iteration(g, "interleaved:v" + std::to_string(v)) < iteration(g, "1f1b");
        };
        std::optional<double> expected;
        double lo = 1e-3, hi = 1e5;
        if (wins(lo)) {
          expected = lo;
        } else if (wins(hi)) {
          for (int i = 0; i < 24; ++i) {
            const double mid = std::sqrt(lo * hi);
            (wins(mid) ? hi : lo) = mid;
          }
          expected = hi;
        }
        ASSERT_EQ(gbps.has_value(), expected.has_value()) << "v " << v;
        if (expected) {
          ++bisected;
          EXPECT_EQ(*gbps, *expected) << "v " << v << ", fwd " << fwd_ms << " ms, shared path " << shared;
        }
      }
    }
  }
  EXPECT_GE(bisected, 4);  // every case above has an answer inside the range
}

TEST(Predictor, MeasuredTableIsInterpolatedAndMissingPairsAreNamed) {
  const auto plan = plan_json(kModel);
  nlohmann::json results = {{"schema", "pipebench.results/1"}, {"records", nlohmann::json::array()}};
  for (const auto& pair : std::vector<std::vector<int>>{{0, 1}, {1, 2}, {2, 3}, {0, 3}}) {
    for (std::int64_t size : {65536, 1048576}) {
      results["records"].push_back(
          {{"op", "pair"}, {"ranks", pair}, {"size_bytes", size}, {"time_us", 5 + static_cast<double>(size) / 1e4}});
    }
  }
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const MeasuredCost partial = measured_of(results, "t.json");
  try {
    (void)predict_with(plan, partial, c, false, false, "");
    FAIL() << "collectives are not in the table";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.input(), ModelError::Input::kNoMeasurement);
    EXPECT_NE(std::string(e.what()).find("t.json: no measurement of"), std::string::npos) << e.what();
    EXPECT_EQ(e.detail().rfind("no measurement of", 0), 0u) << e.detail();
  }
  // Interpolation in log-size between the two measured points.
  const CommCost mid = partial.cost(op_named("pair"), {0, 1}, 262144);
  EXPECT_GT(mid.time, (5 + 65536 / 1e4) * 1000);
  EXPECT_LT(mid.time, (5 + 1048576 / 1e4) * 1000);
  EXPECT_EQ(mid.source, "measured");
  EXPECT_EQ(partial.cost(op_named("pair"), {0, 1}, 1 << 24).source, "measured (extrapolated)");
  EXPECT_THROW((void)measured_of(nlohmann::json{{"schema", "pipebench.plan/1"}}, "x.json"), UsageError);
  // One-way records (pipebench pairs) are a fallback only, flagged.
  nlohmann::json oneway = {{"schema", "pipebench.results/1"}, {"records", nlohmann::json::array()}};
  oneway["records"].push_back(
      {{"op", "pair"}, {"ranks", {5, 6}}, {"size_bytes", 1 << 20}, {"time_us", 10.0}, {"bidirectional", false}});
  oneway["records"].push_back(
      {{"op", "pair"}, {"ranks", {5, 6}}, {"size_bytes", 1 << 22}, {"time_us", 30.0}, {"bidirectional", false}});
  EXPECT_EQ(measured_of(oneway, "o.json").cost(op_named("pair"), {5, 6}, 1 << 21).source, "measured (one-way figure)");
}

TEST(Predictor, TransfersSharingATopologyLinkCompete) {
  const auto plan = plan_json(kModel);
  // Four GPUs; in `shared`, every path crosses one host uplink (no GPU P2P: through the root complex).
  auto results = [](bool shared) {
    nlohmann::json devices = nlohmann::json::array(), gpus = nlohmann::json::array(), pairs = nlohmann::json::array();
    for (int i = 0; i < 4; ++i) {
      const std::string bus = "0000:0" + std::to_string(i + 1) + ":00.0";
      devices.push_back({{"rank", i}, {"bus_id", bus}, {"host", "h"}});
      gpus.push_back({{"index", i}, {"bus_id", bus}});
    }
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        if (a == b) continue;
        std::vector<std::string> path = {"up:gpu" + std::to_string(a), "down:gpu" + std::to_string(b)};
        if (shared) path.push_back("rootcomplex");
        pairs.push_back({{"a", a}, {"b", b}, {"kind", "gpu-gpu"}, {"class", "PHB"}, {"path", path}});
      }
    const nlohmann::json topo = {{"schema", "pipebench.topology/1"}, {"host", "h"}, {"gpus", gpus}, {"pairs", pairs}};
    return nlohmann::json{{"schema", "pipebench.results/1"},
                          {"records", nlohmann::json::array()},
                          {"system", {{"devices", devices}, {"topology", topo}}}};
  };
  const auto paths = [](const nlohmann::json& j) { return path_model(place_ranks(results_from_json(j, "r.json"))); };
  const PathModel own = paths(results(false)), shared = paths(results(true));
  EXPECT_EQ(own.links.size(), 12u);
  EXPECT_EQ(shared.link_count, own.link_count + 1);
  ComputeOptions c;
  c.fwd_ms_per_layer = 0.05;
  const AssumedCost link(2, 5);
  const double t_own = predict_with(plan, link, c, false, false, "1f1b", &own).schedules[0].iteration_ms;
  const double t_shared = predict_with(plan, link, c, false, false, "1f1b", &shared).schedules[0].iteration_ms;
  EXPECT_GT(t_shared, t_own);
}

TEST(Predictor, PerClassLinksAndClassFallback) {
  // A topology where 0-1 and 2-3 are NV4 and everything else SYS; rank i = GPU i.
  nlohmann::json topo = {{"schema", "pipebench.topology/1"},
                         {"host", "h"},
                         {"gpus", nlohmann::json::array()},
                         {"pairs", nlohmann::json::array()}};
  for (int i = 0; i < 4; ++i)
    topo["gpus"].push_back({{"index", i}, {"bus_id", "0000:0" + std::to_string(i) + ":00.0"}});
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b)
        topo["pairs"].push_back({{"a", a},
                                 {"b", b},
                                 {"kind", "gpu-gpu"},
                                 {"class", a / 2 == b / 2 ? "NV4" : "SYS"},
                                 {"path", nlohmann::json::array()}});
  const Placement classes = place_ranks(topology_from_json(topo, "t.json"));
  EXPECT_EQ(classes.class_of({0, 1}), parse_link_class("NV4"));
  EXPECT_EQ(classes.class_of({1, 2}), parse_link_class("SYS"));
  EXPECT_EQ(classes.class_of({0, 1, 2}), parse_link_class("SYS"));  // the worst pair of the group
  AssumedCost link(10, 0);
  link.set_classes(classes);
  link.set_class_link(*parse_link_class("SYS"), 1, 0);
  EXPECT_EQ(link.cost(op_named("pair"), {0, 1}, 1000000000).time, 100000000);   // 1 GB at 10 GB/s
  EXPECT_EQ(link.cost(op_named("pair"), {1, 2}, 1000000000).time, 1000000000);  // 1 GB at 1 GB/s
  EXPECT_EQ(link.cost(op_named("pair"), {1, 2}, 1).source, "assumed (SYS)");
  // The class, not its spelling: NV04 is NV4's class; a class given again takes the later link.
  link.set_class_link(*parse_link_class("NV04"), 5, 0);
  link.set_class_link(*parse_link_class("NV4"), 2, 0);
  EXPECT_EQ(link.cost(op_named("pair"), {0, 1}, 1000000000).time, 500000000);  // 1 GB at 2 GB/s
  EXPECT_EQ(link.cost(op_named("pair"), {0, 1}, 1).source, "assumed (NV4)");
  // A results table with the topology embedded: pair {2,3} was not measured, {0,1} (also NV4) was.
  nlohmann::json results = {{"schema", "pipebench.results/1"}, {"records", nlohmann::json::array()}};
  results["system"] = {{"topology", topo}, {"devices", nlohmann::json::array()}};
  for (int i = 0; i < 4; ++i)
    results["system"]["devices"].push_back({{"rank", i}, {"bus_id", "0000:0" + std::to_string(i) + ":00.0"}});
  results["records"].push_back({{"op", "pair"}, {"ranks", {0, 1}}, {"size_bytes", 1 << 20}, {"time_us", 10.0}});
  results["records"].push_back({{"op", "pair"}, {"ranks", {0, 1}}, {"size_bytes", 1 << 22}, {"time_us", 40.0}});
  MeasuredCost measured = measured_of(results, "r.json");
  EXPECT_THROW((void)measured.cost(op_named("pair"), {2, 3}, 1 << 21), ModelError);
  measured.allow_class_fallback();
  const CommCost c = measured.cost(op_named("pair"), {2, 3}, 1 << 21);
  EXPECT_EQ(c.source, "measured (class NV4 fallback)");
  EXPECT_NEAR(static_cast<double>(c.time), 20000, 1);  // log-log between 10 us at 1M and 40 us at 4M
  EXPECT_THROW((void)measured.cost(op_named("pair"), {1, 2}, 1 << 21), ModelError);  // SYS: nothing of that class
}

TEST(Predictor, ChromeTraceHasOneProcessPerRankAndCompleteEvents) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction p = predict_with(plan, AssumedCost(10, 5), c, false, true, "1f1b");
  ASSERT_EQ(p.schedules.size(), 1u);
  std::string text;
  std::size_t largest_piece = 0;
  chrome_trace_text(p.schedules[0], [&](std::string_view piece) {
    text += piece;
    largest_piece = std::max(largest_piece, piece.size());
  });
  const auto t = nlohmann::json::parse(text);
  std::set<int> processes;
  int complete = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["pid"].get<int>());
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(processes.size(), 4u);
  EXPECT_GT(complete, 4 * 8 * 2);  // at least every F and B
  EXPECT_EQ(t["displayTimeUnit"], "ms");
  EXPECT_EQ(largest_piece, text.size()) << "a small trace is one piece";
}

// predict --trace: each schedule's events go to the sink as the simulation makes them, the same events a
// kept trace holds, and the schedules come back without them.
TEST(Predictor, ATraceSinkGetsEveryEventAsItIsMadeAndNothingIsKept) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction kept = predict_with(plan, AssumedCost(10, 5), c, false, true, "");
  std::map<std::string, std::vector<TraceEvent>> streamed;
  std::vector<std::string> order;
  const ScheduleTraceSink sink = [&](const ScheduleId& id, const TracedSimulation& simulate) {
    order.push_back(id.key());
    const SchedulePrediction& s = simulate([&](const TraceEvent& e) { streamed[id.key()].push_back(e); });
    EXPECT_EQ(s.id.key(), id.key());
    EXPECT_TRUE(s.sim.trace.empty());
    EXPECT_TRUE(s.sim.task_starts.empty());
  };
  const Prediction p =
      predict(plan, AssumedCost(10, 5), make_compute_model(plan, c), false, true, "", nullptr, {}, sink);
  ASSERT_EQ(p.schedules.size(), kept.schedules.size());
  ASSERT_EQ(order.size(), kept.schedules.size());
  for (std::size_t i = 0; i < p.schedules.size(); ++i) {
    const auto& k = kept.schedules[i];
    EXPECT_EQ(order[i], k.id.key());
    EXPECT_DOUBLE_EQ(p.schedules[i].iteration_ms, k.iteration_ms) << k.id.key();
    EXPECT_TRUE(p.schedules[i].sim.trace.empty()) << k.id.key();
    const auto& events = streamed[k.id.key()];
    ASSERT_EQ(events.size(), k.sim.trace.size()) << k.id.key();
    ASSERT_FALSE(events.empty());
    for (std::size_t e = 0; e < events.size(); ++e) {
      EXPECT_EQ(events[e].name, k.sim.trace[e].name);
      EXPECT_EQ(events[e].start, k.sim.trace[e].start);
      EXPECT_EQ(events[e].end, k.sim.trace[e].end);
    }
  }
  EXPECT_EQ(p.best, kept.best);
}

// The text is handed over in pieces of about a MiB, so that a trace of any size is written without being
// held: a trace many times that size never comes as one piece.
TEST(Predictor, ChromeTraceTextComesInPiecesOfBoundedSize) {
  SchedulePrediction s;
  s.ranks.resize(2);
  s.sim.trace.assign(200000, TraceEvent{1, "compute", "F123 chunk 7", 123456789, 123987654});
  std::size_t pieces = 0, largest = 0, total = 0;
  std::string tail;
  chrome_trace_text(s, [&](std::string_view piece) {
    ++pieces;
    largest = std::max(largest, piece.size());
    total += piece.size();
    tail = std::string(piece.substr(piece.size() > 64 ? piece.size() - 64 : 0));
  });
  EXPECT_GT(total, 10u << 20);
  EXPECT_GT(pieces, 5u);
  EXPECT_LT(largest, (1u << 20) + 4096);
  const std::string end = "\n],\"displayTimeUnit\":\"ms\"}\n";
  ASSERT_GE(tail.size(), end.size());
  EXPECT_EQ(tail.substr(tail.size() - end.size()), end);
  // An event's text: microseconds with exact decimals, the track as its thread.
  std::string first;
  chrome_trace_text(s, [&](std::string_view piece) {
    if (first.empty()) first = std::string(piece.substr(0, 2000));
  });
  EXPECT_NE(first.find(R"({"ph":"X","name":"F123 chunk 7","pid":1,"tid":0,"ts":123456.789,"dur":530.865})"),
            std::string::npos)
      << first;
  // A schedule file's name is the user's text: escaped, the trace still JSON.
  s.sim.trace.assign(1, TraceEvent{0, "send", "a\"b\\c\n", 0, 1});
  std::string text;
  chrome_trace_text(s, [&](std::string_view piece) { text += piece; });
  EXPECT_EQ(nlohmann::json::parse(text)["traceEvents"].front()["name"], "a\"b\\c\n");
}

TEST(Predictor, BadComputeOptionsAndSchedulesAreRefused) {
  const auto plan = plan_json(kModel);
  ComputeOptions none;
  EXPECT_THROW((void)predict_with(plan, ZeroCost{}, none, false, false, ""), ModelError);
  ComputeOptions neg;
  neg.fwd_ms_per_layer = -1;
  EXPECT_THROW((void)predict_with(plan, ZeroCost{}, neg, false, false, ""), ModelError);
  ComputeOptions ok;
  ok.tflops = 100;
  EXPECT_THROW((void)predict_with(plan, ZeroCost{}, ok, false, false, "interleaved:v3"), ModelError);
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// An assumed link whose 2-rank all-reduces (each stage's DP gradient reduction, DP 2) were timed at once
// on 4 groups `slowdown` times slower than alone.
class SharedReductions final : public CostModel {
 public:
  explicit SharedReductions(double slowdown) : slowdown_(slowdown) {}
  CommCost cost(const Op& op, const std::vector<int>& ranks, std::int64_t bytes) const override {
    return base_.cost(op, ranks, bytes);
  }
  std::optional<Sharing> sharing(const Op& op, int group_size, std::int64_t bytes) const override {
    if (op.name() != "all_reduce" || group_size != 2) return std::nullopt;
    Sharing s;
    s.op = op.name();
    s.group_size = 2;
    s.groups = 4;
    s.bytes = bytes;
    s.alone_us = 1000;
    s.together_us = 1000 * slowdown_;
    s.slowdown = slowdown_;
    return s;
  }

 private:
  AssumedCost base_{2, 5};  // 2 GB/s: the reductions take milliseconds
  double slowdown_;
};

TEST(Predictor, GradientReductionsThatShareAResourceLengthenTheIteration) {
  std::string model = kModel;
  model.replace(model.find("--world-size 4"), 14, "--world-size 8");
  const auto plan = plan_json(model);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction base = predict_with(plan, AssumedCost(2, 5), c, false, false, "1f1b");
  const Prediction same = predict_with(plan, SharedReductions(1.0), c, false, false, "1f1b");
  const Prediction slow = predict_with(plan, SharedReductions(4.0), c, false, false, "1f1b");
  EXPECT_TRUE(base.sharing.empty());
  ASSERT_EQ(slow.sharing.size(), 1u);
  EXPECT_DOUBLE_EQ(slow.sharing[0].slowdown, 4.0);
  // No slowdown measured: nothing changes; four at once on a resource of one: the overlapping
  // reductions take longer, never more than four times their time alone.
  EXPECT_DOUBLE_EQ(same.schedules[0].iteration_ms, base.schedules[0].iteration_ms);
  EXPECT_GT(slow.schedules[0].iteration_ms, base.schedules[0].iteration_ms);
  const SimTime dp_alone = [&] {
    SimTime longest = 0;
    for (const auto& m : plan.schedules[0].messages) {
      if (m.phase == Phase::kAfter && m.op == "all_reduce" && m.group.size() == 2)
        longest = std::max(longest, AssumedCost(2, 5).cost(*m.op.collective(), m.group, m.bytes).time);
    }
    return longest;
  }();
  EXPECT_LE(slow.schedules[0].iteration_ms, base.schedules[0].iteration_ms + 3.0 * static_cast<double>(dp_alone) / 1e6);
}

// With the distributed optimizer and tied embeddings the first and last stages hold two DP buckets of one
// label ("dp grads, chunk 0": the layers', the embedding's): each bucket is its own reduce-scatter and
// all-gather of the rank's data-parallel group. Playing them as one collective, a rank arrived twice at it
// and the simulation stopped with a deadlock. Every bucket is simulated: the after-pipeline time grows by
// the costs of both.
TEST(Predictor, DataParallelBucketsThatShareALabelAreEachTheirOwnCollective) {
  std::string model = kModel;
  model.replace(model.find("--world-size 4"), 14, "--world-size 8");
  model.replace(model.find(" --untie-embeddings-and-output-weights"), 38, " --use-distributed-optimizer");
  const auto plan = plan_json(model);
  std::map<std::pair<std::string, std::vector<int>>, int> calls;
  for (const auto& m : plan.schedules[0].messages) {
    if (m.phase == Phase::kAfter && m.rank == 0 && m.what.rfind("dp grads", 0) == 0) ++calls[{m.what, m.group}];
  }
  ASSERT_TRUE(std::any_of(calls.begin(), calls.end(), [](const auto& c) { return c.second > 1; }))
      << "rank 0 has a label with two buckets on one group";
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction p = predict_with(plan, AssumedCost(2, 5), c, false, false, "1f1b");
  ASSERT_EQ(p.schedules.size(), 1u);
  // Rank 0 (tied embedding: two buckets) blocks on every bucket's reduce-scatter and all-gather.
  SimTime buckets = 0;
  for (const auto& m : plan.schedules[0].messages) {
    if (m.phase == Phase::kAfter && m.rank == 0 && (m.op == "reduce_scatter" || m.op == "all_gather"))
      buckets += AssumedCost(2, 5).cost(*m.op.collective(), m.group, m.bytes).time;
  }
  EXPECT_GE(p.schedules[0].sim.ranks[0].blocked, buckets);
}

// A schedule file that lists 1F1B's (ZB-H1's) order, written by hand for p 4 and m 8, is predicted exactly as
// the built-in schedule on links that cost something: the same iteration and the same per-rank results.
void expect_file_predicted_as(const std::string& file, const std::string& builtin) {
  const auto plan = plan_json(kModel);  // p 4, m 8
  ASSERT_EQ(plan.layout.pp, 4);
  ASSERT_EQ(plan.layout.microbatches, 8);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  c.bwd_ms_per_layer = 2;
  const ScheduleId id = load_schedule_file("--schedule-file", TEST_DATA_DIR "/schedule/" + file, 4, 8);
  const Prediction p =
      predict(plan, AssumedCost(0.5, 20), make_compute_model(plan, c), false, false, builtin, nullptr, {id});
  // The built-in and the file; 1F1B after them as the baseline when the built-in is not 1F1B.
  ASSERT_EQ(p.schedules.size(), builtin == "1f1b" ? 2u : 3u);
  if (builtin != "1f1b") {
    EXPECT_TRUE(p.schedules.back().id.is_baseline());
  }
  const SchedulePrediction &a = p.schedules[0], &b = p.schedules[1];
  EXPECT_EQ(a.id.name, builtin);
  EXPECT_EQ(b.id.key(), id.name);
  EXPECT_TRUE(b.reference);
  EXPECT_EQ(a.sim.iteration, b.sim.iteration);
  ASSERT_EQ(a.sim.ranks.size(), 4u);
  ASSERT_EQ(b.sim.ranks.size(), 4u);
  SimTime exposed = 0;
  for (std::size_t r = 0; r < 4; ++r) {
    const RankResult &x = a.sim.ranks[r], &y = b.sim.ranks[r];
    EXPECT_EQ(x.end, y.end) << r;
    EXPECT_EQ(x.compute, y.compute) << r;
    EXPECT_EQ(x.blocked, y.blocked) << r;
    EXPECT_EQ(x.waiting, y.waiting) << r;
    EXPECT_EQ(x.comm_busy, y.comm_busy) << r;
    EXPECT_EQ(x.p2p_bytes_out, y.p2p_bytes_out) << r;
    EXPECT_EQ(x.p2p_messages_out, y.p2p_messages_out) << r;
    exposed += x.blocked;
  }
  EXPECT_GT(exposed, 0);  // the links cost time, so the calls' grouping matters
  EXPECT_EQ(a.dominant.what, b.dominant.what);
  EXPECT_DOUBLE_EQ(a.bubble_sim, b.bubble_sim);
}

TEST(Predictor, AOneFOneBScheduleFileIsPredictedAsTheBuiltInOneFOneB) {
  expect_file_predicted_as("1f1b_p4_m8.csv", "1f1b");
  expect_file_predicted_as("1f1b_p4_m8_comms.csv", "1f1b");
}

TEST(Predictor, AZbH1ScheduleFileIsPredictedAsTheBuiltInZbH1) { expect_file_predicted_as("zb_h1_p4_m8.csv", "zb-h1"); }

// Speed-ups are against 1F1B and a reference is never the verdict's pick: a reference asked for alone, or an
// interleaved schedule alone, has 1F1B simulated beside it as the baseline, said in a note.
TEST(Predictor, ASelectionWithoutOneFOneBIsComparedWithIt) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  const Prediction all = predict_with(plan, AssumedCost(2, 5), c, false, false, "");
  const auto time_of = [&all](const std::string& key) {  // the iteration the speed-ups compare
    for (const auto& s : all.schedules) {
      if (s.id.key() == key) return all.compared_ms(s);
    }
    return -1.0;
  };
  for (const std::string reference : {"gpipe", "zb-h1"}) {
    const Prediction p = predict_with(plan, AssumedCost(2, 5), c, false, false, reference);
    ASSERT_EQ(p.schedules.size(), 2u) << reference;
    EXPECT_EQ(p.schedules[0].id.key(), reference);
    EXPECT_TRUE(p.schedules[0].reference);
    EXPECT_TRUE(p.schedules[1].id.is_baseline());
    EXPECT_FALSE(p.schedules[1].reference);
    EXPECT_DOUBLE_EQ(p.schedules[1].iteration_ms, time_of("1f1b"));
    EXPECT_DOUBLE_EQ(p.schedules[0].speedup, time_of("1f1b") / time_of(reference)) << reference;
    EXPECT_EQ(p.best, "1f1b") << reference;
    EXPECT_NE(p.verdict.find("references beside it: " + reference), std::string::npos) << p.verdict;
    EXPECT_NE(p.notes.back().find("1f1b: simulated as the baseline"), std::string::npos) << p.notes.back();
  }
  const Prediction v2 = predict_with(plan, AssumedCost(2, 5), c, false, false, "interleaved:v2");
  ASSERT_EQ(v2.schedules.size(), 2u);
  EXPECT_TRUE(v2.schedules[1].id.is_baseline());
  EXPECT_DOUBLE_EQ(v2.schedules[0].speedup, time_of("1f1b") / time_of("interleaved:v2"));
  EXPECT_NE(v2.verdict.find("1F1B"), std::string::npos) << v2.verdict;
}

// A schedule file with two chunks per rank runs on the plan's interleaved messages; a plan without that v
// is named in one line.
TEST(Predictor, AScheduleFileNeedsThePlansScheduleOfItsV) {
  const auto plan = plan_json(kModel);
  ComputeOptions c;
  c.fwd_ms_per_layer = 1;
  // Megatron's interleaved order without its 1F1B phase: groups of p microbatches, chunk-major.
  std::string rows;
  for (int r = 0; r < 4; ++r) {
    std::string row;
    for (const char* pass : {"F", "B"}) {
      for (int group = 0; group < 8; group += 4) {
        for (int chunk = 0; chunk < 2; ++chunk) {
          const int stage = *pass == 'F' ? r + 4 * chunk : r + 4 * (1 - chunk);
          for (int mb = group; mb < group + 4; ++mb) row += std::to_string(stage) + pass + std::to_string(mb) + ",";
        }
      }
    }
    row.back() = '\n';
    rows += row;
  }
  const ScheduleId looped = schedule_from_csv("--schedule-file looped.csv", rows, "looped", 4, 8);
  ASSERT_EQ(looped.v, 2);
  const Prediction p =
      predict(plan, AssumedCost(5, 10), make_compute_model(plan, c), false, false, "1f1b", nullptr, {looped});
  ASSERT_EQ(p.schedules.size(), 2u);
  EXPECT_EQ(p.schedules[1].id.key(), "file:looped:v2");
  EXPECT_GT(p.schedules[1].iteration_ms, 0);
  // Beside a --schedule that picks none of the plan's, the file is not run alone: the missing one is named.
  EXPECT_THROW((void)predict(plan, AssumedCost(5, 10), make_compute_model(plan, c), false, false, "interleaved:v3",
                             nullptr, {looped}),
               UsageError);
  const auto one_v = plan_json(std::string(kModel) + " --num-layers-per-virtual-pipeline-stage 2");  // v 2 only
  EXPECT_NO_THROW(
      (void)predict(one_v, AssumedCost(5, 10), make_compute_model(one_v, c), false, false, "1f1b", nullptr, {looped}));
  const auto no_v = plan_json(
      "--num-layers 12 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 "
      "--world-size 4 --num-layers-per-virtual-pipeline-stage 3");  // 3 layers per rank: v 1 or 3
  try {
    (void)predict(no_v, AssumedCost(5, 10), make_compute_model(no_v, c), false, false, "", nullptr, {looped});
    ADD_FAILURE() << "a v the plan has no schedule for was predicted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--schedule-file looped.csv: its 8 stages are 2 model chunks per rank, but "
                                          "the plan has no schedule with v 2 (it has 1f1b, ",
                                          0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace pipebench
