// SPDX-License-Identifier: Apache-2.0
// pipebench.results/1 and pipebench.topology/1 read back: records, placement, and bad-file messages.
#include "io/results_io.h"

#include <gtest/gtest.h>

#include <tuple>

#include "collectives/registry.h"
#include "core/error.h"
#include "io/topology_io.h"
#include "report/topology_report.h"
#include "sim/model_error.h"
#include "sim/predictor.h"
#include "topology/discovery.h"

namespace pipebench {
namespace {

// The registry's op of this name, as the cost models take it.
const Op& op_named(std::string_view name) { return OpRegistry::instance().find("op", name); }

using nlohmann::json;

std::string error_of(const json& j) {
  try {
    (void)results_from_json(j, "--table t.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

ResultRecord sample_record() {
  ResultRecord r;
  r.op = "pair";
  r.backend = "nccl";
  r.nranks = 2;
  r.ranks = {3, 1};
  r.dtype = "float";
  r.redop = "none";
  r.size_bytes = 1 << 20;
  r.count = 1 << 18;
  r.time_us = 12.5;
  r.algbw_gbps = 80;
  r.busbw_gbps = 80;
  r.wrong = 0;
  r.ops_per_batch = 4;
  r.warmup = 2;
  r.pairs = {{3, 1}, {1, 3}};
  r.bidirectional = true;
  r.plan_ids = {4, 9};
  r.link_class = "NV4";
  r.path_min_gbps = 25.0;
  r.stats.samples = 10;
  r.stats.min_us = 12;
  r.stats.median_us = 12.5;
  r.stats.mean_us = 12.6;
  r.stats.p95_us = 13.5;
  r.stats.max_us = 14;
  r.stats.stddev_us = 0.4;
  return r;
}

TEST(ResultsIo, RecordRoundTripKeepsEveryField) {
  const ResultRecord r = sample_record();
  const json j = record_to_json(r);
  const ResultRecord back = record_from_json(j, "t");
  EXPECT_EQ(record_to_json(back), j);
  ResultRecord failed = r;
  failed.error = "NCCL error";
  failed.pairs.clear();
  EXPECT_EQ(record_to_json(record_from_json(record_to_json(failed), "t")), record_to_json(failed));
}

// bench --plan's gradient reductions of every group at once: the groups travel, and must be disjoint
// groups of one size that make up the record's ranks.
TEST(ResultsIo, AtOnceGroupsRoundTripAndAreChecked) {
  ResultRecord r = sample_record();
  r.op = "all_reduce";
  r.pairs.clear();
  r.ranks = {0, 1, 2, 3};
  r.at_once = {{0, 2}, {1, 3}};
  const json j = record_to_json(r);
  EXPECT_EQ(record_from_json(j, "t").at_once, r.at_once);
  EXPECT_TRUE(ran_alone(sample_record()));
  EXPECT_FALSE(ran_alone(record_from_json(j, "t")));
  const auto refused = [&j](const json& groups) {
    json bad = j;
    bad["at_once"] = groups;
    try {
      (void)record_from_json(bad, "t");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(refused(json::array({{0, 1, 2, 3}})).find("at_once"), std::string::npos);     // one group
  EXPECT_NE(refused(json::array({{0, 2}, {2, 3}})).find("disjoint"), std::string::npos);  // overlap
  EXPECT_NE(refused(json::array({{0}, {1, 2, 3}})).find("one size"), std::string::npos);  // sizes differ
  EXPECT_NE(refused(json::array({{0, 2}, {1, 4}})).find("union"), std::string::npos);     // not the ranks
}

TEST(ResultsIo, StatisticsAndThePathsLinkAreReadBack) {
  const ResultRecord back = record_from_json(record_to_json(sample_record()), "t");
  EXPECT_EQ(back.stats.samples, 10);
  EXPECT_DOUBLE_EQ(back.stats.median_us, 12.5);
  EXPECT_DOUBLE_EQ(back.stats.p95_us, 13.5);
  EXPECT_DOUBLE_EQ(back.stats.stddev_us, 0.4);
  ASSERT_TRUE(back.path_min_gbps);
  EXPECT_DOUBLE_EQ(*back.path_min_gbps, 25.0);
  // Files from before path_min_gbps (or with null: unknown) still load.
  const json old = {{"op", "all_reduce"}, {"ranks", {0, 1}}, {"size_bytes", 64}, {"time_us", 1.0}};
  EXPECT_FALSE(record_from_json(old, "t").path_min_gbps);
  json unknown = record_to_json(sample_record());
  unknown["path_min_gbps"] = nullptr;
  EXPECT_FALSE(record_from_json(unknown, "t").path_min_gbps);
  json bad = record_to_json(sample_record());
  bad["path_min_gbps"] = -3;
  try {
    (void)record_from_json(bad, "--table t.json records[0]");
    ADD_FAILURE() << "a negative bandwidth was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--table t.json records[0]: \"path_min_gbps\" is not a finite number >= 0");
  }
  bad = record_to_json(sample_record());
  bad["stats"]["p95_us"] = "slow";
  EXPECT_THROW((void)record_from_json(bad, "t"), UsageError);
}

TEST(ResultsIo, LinkStateAndCommandLineAreReadAndOptional) {
  const json snapshot = {{{"gpu", 0},
                          {"bus_id", "0000:0a:00.0"},
                          {"pcie_gen", 1},
                          {"pcie_width", 16},
                          {"pcie_gen_max", 5},
                          {"pcie_width_max", 16},
                          {"nvlinks_up", 18},
                          {"nvlinks_down", 0}}};
  json end = snapshot;
  end[0]["nvlinks_up"] = 17;
  end[0]["nvlinks_down"] = 1;
  end[0]["pcie_gen"] = nullptr;
  const json during = {{{"gpu", 0},
                        {"bus_id", "0000:0a:00.0"},
                        {"pcie_gen_seen", 5},
                        {"pcie_width_seen", 16},
                        {"pcie_gen_max", 5},
                        {"pcie_width_max", 16},
                        {"samples", 4}}};
  const json j = {{"schema", kResultsSchema},
                  {"command_line", "pipebench bench -b 8"},
                  {"system", {{"link_state", {{"start", snapshot}, {"end", end}}}}},
                  {"link_state_during_run", during},
                  {"records", json::array()}};
  const ResultSet rs = results_from_json(j, "t");
  EXPECT_EQ(rs.command_line, "pipebench bench -b 8");
  ASSERT_EQ(rs.system.link_start.size(), 1u);
  EXPECT_EQ(rs.system.link_start[0].pcie_gen, 1);
  EXPECT_EQ(rs.system.link_start[0].nvlinks_up, 18);
  ASSERT_EQ(rs.system.link_end.size(), 1u);
  EXPECT_EQ(rs.system.link_end[0].pcie_gen, 0);  // null: unknown
  EXPECT_EQ(rs.system.link_end[0].nvlinks_down, 1);
  ASSERT_EQ(rs.link_during_run.size(), 1u);
  EXPECT_EQ(rs.link_during_run[0].pcie_gen, 5);
  EXPECT_EQ(rs.link_during_run[0].nvlinks_up, -1);
  // Without the new fields the file still loads.
  const ResultSet old = results_from_json({{"schema", kResultsSchema}, {"records", json::array()}}, "t");
  EXPECT_TRUE(old.command_line.empty());
  EXPECT_TRUE(old.system.link_start.empty());
  EXPECT_TRUE(old.link_during_run.empty());
  json bad = j;
  bad["system"]["link_state"]["end"][0]["nvlinks_down"] = -1;
  EXPECT_EQ(error_of(bad), "--table t.json: \"system.link_state.end[0].nvlinks_down\" is negative");
}

TEST(ResultsIo, PairWithoutDirectionIsTheBidirectionalFigure) {
  const json j = {{"op", "pair"}, {"ranks", {0, 1}}, {"size_bytes", 64}, {"time_us", 1.0}};
  EXPECT_TRUE(record_from_json(j, "t").bidirectional);
  json one = j;
  one["bidirectional"] = false;
  EXPECT_FALSE(record_from_json(one, "t").bidirectional);
}

TEST(ResultsIo, BadFilesAreNamedByFileAndField) {
  EXPECT_EQ(error_of(json{{"schema", "pipebench.plan/1"}}), "--table t.json: not a pipebench.results/1 file");
  EXPECT_EQ(error_of(json{{"schema", kResultsSchema}}), "--table t.json: \"records\" is missing");
  json j = {{"schema", kResultsSchema}, {"records", json::array()}};
  j["records"].push_back({{"op", "pair"}, {"ranks", {0, 1}}, {"time_us", 1.0}});
  EXPECT_EQ(error_of(j), "--table t.json records[0]: \"size_bytes\" is missing");
  j["records"][0]["size_bytes"] = "big";
  EXPECT_EQ(error_of(j), "--table t.json records[0]: \"size_bytes\" is not a size in bytes");
  j["records"][0]["size_bytes"] = 64;
  j["records"][0]["ranks"] = json::array({0, "one"});
  EXPECT_EQ(error_of(j), "--table t.json records[0]: \"ranks[1]\" is not an integer");
  j["records"][0]["ranks"] = json::array({0, 1});
  j["system"] = {{"devices", json::array({{{"host", "h"}}})}};
  EXPECT_EQ(error_of(j), "--table t.json: \"system.devices[0].rank\" is missing");
}

TEST(ResultsIo, RanksArePlacedOnTheEmbeddedTopologysGpus) {
  // Two GPUs; rank 0 sits on GPU 1 and rank 1 on GPU 0 (bus ids in another spelling).
  const json topo = {
      {"schema", kTopologySchema},
      {"host", "h"},
      {"gpus", json::array({{{"index", 0}, {"bus_id", "0000:18:00.0"}}, {{"index", 1}, {"bus_id", "0000:3b:00.0"}}})},
      {"pairs",
       json::array({{{"a", 0}, {"b", 1}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}},
                    {{"a", 1}, {"b", 0}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}},
                    {{"a", 0}, {"b", "mlx5_0"}, {"kind", "gpu-nic"}, {"class", "PIX"}, {"path", json::array()}}})}};
  json j = {{"schema", kResultsSchema}, {"records", json::array()}};
  j["system"] = {{"topology", topo},
                 {"devices", json::array({{{"rank", 0}, {"host", "h"}, {"bus_id", "00000000:3B:00.0"}},
                                          {{"rank", 1}, {"host", "h"}, {"bus_id", "0000:18:00.0"}}})}};
  const ResultSet rs = results_from_json(j, "t");
  ASSERT_TRUE(rs.system.topology.has_value());
  EXPECT_EQ(rs.system.topology->gpu_pairs.size(), 2u);  // the GPU-NIC pair is not read
  const Placement placed = place_ranks(rs);
  EXPECT_EQ(placed.gpu_of_rank(), (std::map<int, int>{{0, 1}, {1, 0}}));
  EXPECT_EQ(placed.class_of({0, 1}), parse_link_class("NV12"));
  j["system"]["topology"] = {{"error", "no hwloc"}};  // a run that could not read its topology
  EXPECT_TRUE(place_ranks(results_from_json(j, "t")).gpu_of_rank().empty());
}

// A results file of two hosts with the same GPUs (bus ids) on each: the embedded topology is rank 0's
// host's, so ranks of the other host are NET to it and never take a class of its GPUs.
TEST(ResultsIo, RanksOfAnotherHostAreNetNotPlacedOnTheseGpus) {
  const json topo = {
      {"schema", kTopologySchema},
      {"host", "n1"},
      {"gpus", json::array({{{"index", 0}, {"bus_id", "0000:18:00.0"}}, {{"index", 1}, {"bus_id", "0000:3b:00.0"}}})},
      {"pairs", json::array({{{"a", 0}, {"b", 1}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}},
                             {{"a", 1}, {"b", 0}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}}})}};
  json j = {{"schema", kResultsSchema}, {"records", json::array()}};
  j["system"] = {{"topology", topo},
                 {"devices", json::array({{{"rank", 0}, {"host", "n1"}, {"bus_id", "0000:18:00.0"}},
                                          {{"rank", 1}, {"host", "n1"}, {"bus_id", "0000:3b:00.0"}},
                                          {{"rank", 2}, {"host", "n2"}, {"bus_id", "0000:18:00.0"}},
                                          {{"rank", 3}, {"host", "n2"}, {"bus_id", "0000:3b:00.0"}}})}};
  const Placement placed = place_ranks(results_from_json(j, "t"));
  EXPECT_EQ(placed.class_of({0, 1}), parse_link_class("NV12"));
  EXPECT_EQ(placed.class_of({1, 2}), parse_link_class("NET"));
  EXPECT_EQ(placed.class_of({0, 1, 2, 3}), parse_link_class("NET"));
  EXPECT_EQ(placed.class_of({2, 3}), std::nullopt);  // n2's topology is not in the file
  EXPECT_EQ(placed.link(2, 3), nullptr);             // nor a link of n1's GPUs with the same bus ids
  // predict's --link classes come from this placement: the pair across the hosts takes NET's link.
  AssumedCost link(100, 0);
  link.set_classes(placed);
  link.set_class_link(*parse_link_class("NET"), 1, 0);
  EXPECT_EQ(link.cost(op_named("pair"), {1, 2}, 1000000000).source, "assumed (NET)");
  EXPECT_EQ(link.cost(op_named("pair"), {1, 2}, 1000000000).time, 1000000000);  // 1 GB at 1 GB/s
  EXPECT_EQ(link.cost(op_named("pair"), {0, 1}, 1).source, "assumed");
  // The shared-path model knows only n1's links: no path of n1 is charged to a pair on n2 or across.
  const PathModel paths = path_model(placed);
  EXPECT_EQ(paths.links.count({0, 1}), 1u);
  EXPECT_EQ(paths.links.count({2, 3}), 0u);
  EXPECT_EQ(paths.links.count({1, 2}), 0u);
}

// predict --table, run and replay price a results file's records on its placed ranks (their topology paths
// from the embedded topology); without a topology no rank is placed; an nccl-tests import stands for
// every group and is placed nowhere.
TEST(ResultsIo, AMeasuredTableIsTheRecordsOnTheirPlacedRanks) {
  const json topo = {
      {"schema", kTopologySchema},
      {"host", "h"},
      {"gpus", json::array({{{"index", 0}, {"bus_id", "0000:18:00.0"}}, {{"index", 1}, {"bus_id", "0000:3b:00.0"}}})},
      {"pairs", json::array({{{"a", 0}, {"b", 1}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}},
                             {{"a", 1}, {"b", 0}, {"kind", "gpu-gpu"}, {"class", "NV12"}, {"path", {"nvlink"}}}})}};
  json j = {{"schema", kResultsSchema}, {"records", json::array()}};
  j["records"].push_back({{"op", "all_reduce"}, {"ranks", {0, 1}}, {"size_bytes", 1 << 20}, {"time_us", 10.0}});
  j["system"] = {{"topology", topo},
                 {"devices", json::array({{{"rank", 0}, {"host", "h"}, {"bus_id", "0000:18:00.0"}},
                                          {{"rank", 1}, {"host", "h"}, {"bus_id", "0000:3b:00.0"}}})}};
  const MeasuredTable placed = measured_table(results_from_json(j, "t"), "t.json");
  EXPECT_EQ(placed.source, "t.json");
  EXPECT_FALSE(placed.from_nccl_tests);
  ASSERT_EQ(placed.records.size(), 1u);
  EXPECT_EQ(placed.placement.class_of({0, 1}), parse_link_class("NV12"));
  const PathModel paths = path_model(placed.placement);
  EXPECT_EQ(paths.links.count({0, 1}), 1u);
  EXPECT_EQ(paths.links.count({1, 0}), 1u);
  j.erase("system");
  EXPECT_TRUE(path_model(measured_table(results_from_json(j, "t"), "t.json").placement).empty());
  j["system"] = {{"topology", topo},
                 {"devices", json::array({{{"rank", 0}, {"host", "h"}, {"bus_id", "0000:18:00.0"}},
                                          {{"rank", 1}, {"host", "h"}, {"bus_id", "0000:3b:00.0"}}})}};
  j["source"] = "nccl-tests";
  const MeasuredTable imported = measured_table(results_from_json(j, "t"), "t.json");
  EXPECT_TRUE(imported.from_nccl_tests);
  EXPECT_FALSE(imported.placement.knows_a_pair());
}

// Every field of two topology files.
void expect_same_topology(const TopologyFile& got, const TopologyFile& want, const std::string& what) {
  EXPECT_EQ(got.host, want.host) << what;
  EXPECT_EQ(got.warnings, want.warnings) << what;
  EXPECT_EQ(got.command_line, want.command_line) << what;
  ASSERT_EQ(got.gpus.size(), want.gpus.size()) << what;
  for (std::size_t i = 0; i < got.gpus.size(); ++i) {
    const TopologyGpu &a = got.gpus[i], &b = want.gpus[i];
    EXPECT_EQ(a.index, b.index) << what << " GPU " << i;
    EXPECT_EQ(a.bus_id, b.bus_id) << what << " GPU " << i;
    EXPECT_EQ(a.model, b.model) << what << " GPU " << i;
    EXPECT_EQ(std::vector<int>({a.pcie_gen, a.pcie_width, a.pcie_gen_max, a.pcie_width_max}),
              std::vector<int>({b.pcie_gen, b.pcie_width, b.pcie_gen_max, b.pcie_width_max}))
        << what << " GPU " << i;
    ASSERT_EQ(a.pcie_chain.size(), b.pcie_chain.size()) << what << " GPU " << i;
    for (std::size_t k = 0; k < a.pcie_chain.size(); ++k) {
      EXPECT_EQ(a.pcie_chain[k].node, b.pcie_chain[k].node) << what << " GPU " << i;
      EXPECT_EQ(a.pcie_chain[k].link, b.pcie_chain[k].link) << what << " GPU " << i;
      EXPECT_EQ(a.pcie_chain[k].gbps, b.pcie_chain[k].gbps) << what << " GPU " << i;
    }
  }
  ASSERT_EQ(got.gpu_pairs.size(), want.gpu_pairs.size()) << what;
  for (std::size_t i = 0; i < got.gpu_pairs.size(); ++i) {
    const TopologyGpuPair &a = got.gpu_pairs[i], &b = want.gpu_pairs[i];
    EXPECT_EQ(std::make_pair(a.a, a.b), std::make_pair(b.a, b.b)) << what << " pair " << i;
    EXPECT_EQ(a.cls, b.cls) << what << " pair " << i << ": " << a.cls.label() << " " << b.cls.label();
    EXPECT_EQ(a.path, b.path) << what << " pair " << i;
    EXPECT_EQ(a.path_min_gbps, b.path_min_gbps) << what << " pair " << i;
  }
}

// A measuring run keeps its own topology typed (service/report_session): it must be, field for field and to
// the bit, what a reader of its results file makes of the JSON written from the same view.
TEST(TopologyIo, TheTypedViewOfADiscoveredTopologyIsWhatItsFileReadsBack) {
  int checked = 0;
  for (const char* name :
       {"hwloc-24em64t-2n6c2t-pci.xml", "hwloc-power8gpudistances.xml", "mpibind-coral-lassen.xml",
        "mpibind-cts1-pascal.xml", "mpibind-g4dnmetal.xml", "nccl-aws-p4d-24xl-topo.xml", "nccl-azure-ncv4-topo.xml",
        "nccl-azure-nd-pci-class-topo.xml", "pipebench-h200-vm.xml", "pipebench-two-switch-levels.xml"}) {
    const std::string file = std::string(TEST_DATA_DIR) + "/topology/" + name;
    DiscoveryOptions o;
    if (std::string(name).rfind("nccl-", 0) == 0) {
      if (!PB_HAVE_TINYXML2) continue;  // --nccl-xml is built out without tinyxml2
      o.nccl_xml = file;
    } else {
      o.hwloc_xml = file;
    }
    const TopologyView v = discover_topology(o);
    expect_same_topology(topology_file(v), topology_from_json(topology_to_json(v), name), name);
    checked += v.gpu_count() > 1;
  }
  EXPECT_GE(checked, 3);  // GPU pairs were compared, not only empty lists
}

TEST(TopologyIo, ReadsBackWhatTopoWritesAndNamesBadFields) {
  if (!PB_HAVE_TINYXML2) GTEST_SKIP() << "the NCCL XML fixture needs tinyxml2 (--nccl-xml is built out)";
  DiscoveryOptions o;
  o.nccl_xml = std::string(TEST_DATA_DIR) + "/topology/nccl-aws-p4d-24xl-topo.xml";
  const TopologyView v = discover_topology(o);
  const TopologyFile t = topology_from_json(topology_to_json(v), "topo.json");
  ASSERT_EQ(t.gpus.size(), v.topology.gpus.size());
  EXPECT_EQ(t.gpu_pairs.size(), t.gpus.size() * (t.gpus.size() - 1));
  for (const auto& p : t.gpu_pairs) {
    const PairInfo want = v.gpu_pair(static_cast<std::size_t>(p.a), static_cast<std::size_t>(p.b));
    EXPECT_EQ(p.cls.label(), want.label());
    EXPECT_EQ(p.path, want.path);
    EXPECT_DOUBLE_EQ(p.path_min_gbps, want.path_min_gbps);
  }
  EXPECT_GT(t.gpu_pairs.at(0).path_min_gbps, 0);  // the fixture's PCIe links are Gen3/Gen4 x16
  EXPECT_EQ(t.gpus.at(0).model, v.topology.gpus.at(0).model);
  EXPECT_EQ(t.gpus.at(0).pcie_width, 16);
  EXPECT_EQ(t.warnings, v.warnings);
  EXPECT_EQ(t.command_line.rfind("unit_tests", 0), 0u) << t.command_line;
  json bad = topology_to_json(v);
  bad["pair_matrix"]["gpu_gpu"][1] = "NVX X";
  try {
    (void)topology_from_json(bad, "--topology topo.json");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--topology topo.json: \"pair_matrix.gpu_gpu[1]\" holds \"NVX\", not a link class");
  }
  bad["pair_matrix"]["gpu_gpu"][1] = "NV12 X";
  EXPECT_THROW((void)topology_from_json(bad, "t"), UsageError);  // 2 labels for 8 GPUs
  // The older form (no "pair_matrix") is read from the "pairs" list.
  bad.erase("pair_matrix");
  EXPECT_EQ(topology_from_json(bad, "t").gpu_pairs.size(), t.gpu_pairs.size());
  bad["pairs"][0]["class"] = "NVX";
  try {
    (void)topology_from_json(bad, "--topology topo.json");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--topology topo.json: \"pairs[0].class\" is not a link class (\"NVX\")");
  }
  EXPECT_THROW((void)topology_from_json(json{{"schema", "pipebench.results/1"}}, "t"), UsageError);
}

TEST(ResultsIo, RecordCarriesEveryDocumentedField) {
  ResultRecord r;
  r.pairs = {{0, 1}};
  r.error = "boom";
  const auto j = record_to_json(r);
  for (const char* key :
       {"op",     "backend",  "nranks",  "ranks",         "dtype",      "redop",        "root",  "size_bytes",
        "count",  "in_place", "time_us", "algbw_gbps",    "busbw_gbps", "wrong",        "stats", "ops_per_batch",
        "warmup", "graph",    "pairs",   "bidirectional", "error",      "path_min_gbps"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"samples", "min_us", "median_us", "mean_us", "p95_us", "max_us", "stddev_us"}) {
    EXPECT_TRUE(j["stats"].contains(key)) << key;
  }
}

// "Is this number normal?": the share of the path's theoretical link each record reached, present only
// where the link is known (never a 0 standing for "unknown").
TEST(ResultsIo, RecordCarriesItsShareOfTheLinkWhereTheLinkIsKnown) {
  const ResultRecord r = sample_record();  // busbw 80 GB/s on a 25 GB/s path
  const json j = record_to_json(r);
  EXPECT_DOUBLE_EQ(j.at("path_min_gbps").get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(j.at("pct_of_link").get<double>(), 320.0);
  EXPECT_EQ(record_to_json(record_from_json(j, "t")), j);  // derived again when read back
  ResultRecord host = r;
  host.path_min_gbps.reset();
  const json unknown = record_to_json(host);
  EXPECT_TRUE(unknown.at("path_min_gbps").is_null());
  EXPECT_FALSE(unknown.contains("pct_of_link")) << unknown.dump();
  host.path_min_gbps = 0.0;  // a link of unknown speed
  EXPECT_FALSE(record_to_json(host).contains("pct_of_link"));
}

// A header with every field set, as a GPU run on two hosts writes it.
ResultsHeader full_header() {
  ResultsHeader h;
  h.tool_version = "0.1.0";
  h.created_utc = "2026-12-07T06:00:00Z";
  h.command_line = "pipebench bench -b 8";
  h.config = {{"iters", 20}, {"ops", {"all_reduce"}}};
  SystemInfo& s = h.system;
  s.hosts = {"a", "b"};
  s.gpu_models = {"NVIDIA H100"};
  s.processes = 2;
  s.devices = {{{0, "a", "0000:18:00.0"}, 4711, 0, "NVIDIA H100"}, {{1, "b", "0000:3b:00.0"}, 4712, 1, "NVIDIA H100"}};
  s.versions = {{"nccl", "2.28.3"}, {"cuda_runtime", "13.0"}};
  s.environment = {{"SLURM_JOB_ID", "42"}};
  s.topology_json = {{"schema", kTopologySchema},
                     {"host", "a"},
                     {"gpus", json::array({{{"index", 0}, {"bus_id", "0000:18:00.0"}}})},
                     {"pairs", json::array()}};
  s.link_start = {{0, "0000:18:00.0", 1, 16, 5, 16, 18, 0}, {1, "0000:3b:00.0", 0, 0, 0, 0, -1, -1}};
  s.link_end = {{0, "0000:18:00.0", 5, 16, 5, 16, 17, 1}};
  s.has_link_start = s.has_link_end = true;
  h.link_during_run = {{0, "0000:18:00.0", 5, 16, 5, 16, -1, -1, 7}};
  return h;
}

void expect_links_equal(const std::vector<LinkStateEntry>& got, const std::vector<LinkStateEntry>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto fields = [](const LinkStateEntry& e) {
      return std::vector<int>{e.gpu,        e.pcie_gen,     e.pcie_width, e.pcie_gen_max, e.pcie_width_max,
                              e.nvlinks_up, e.nvlinks_down, e.samples};
    };
    EXPECT_EQ(fields(got[i]), fields(want[i])) << i;
    EXPECT_EQ(got[i].bus_id, want[i].bus_id) << i;
  }
}

// The results header written by its one writer reads back as the same value, field by field, and writes
// the same bytes again; unknown link values are null in the file.
TEST(ResultsIo, AHeaderWrittenAndReadBackIsEqual) {
  const ResultsHeader h = full_header();
  const json written = results_header(h);
  EXPECT_EQ(written["schema"], kResultsSchema);
  EXPECT_EQ(written["records"], json::array());
  EXPECT_TRUE(written["system"]["link_state"]["start"][1]["pcie_gen"].is_null()) << written.dump();
  EXPECT_TRUE(written["system"]["link_state"]["start"][1]["nvlinks_up"].is_null());
  EXPECT_EQ(written["system"]["link_state"]["start"][0]["nvlinks_down"], 0);  // 0 down is known
  EXPECT_EQ(written["link_state_during_run"][0]["pcie_gen_seen"], 5);
  EXPECT_FALSE(written["link_state_during_run"][0].contains("pcie_gen"));
  EXPECT_FALSE(written.contains("source"));  // pipebench's own file

  const ResultSet back = results_from_json(json::parse(written.dump()), "t");
  EXPECT_EQ(back.tool_version, h.tool_version);
  EXPECT_EQ(back.created_utc, h.created_utc);
  EXPECT_EQ(back.command_line, h.command_line);
  EXPECT_EQ(back.config, h.config);
  const SystemInfo& s = back.system;
  EXPECT_EQ(s.hosts, h.system.hosts);
  EXPECT_EQ(s.gpu_models, h.system.gpu_models);
  EXPECT_EQ(s.processes, 2);
  ASSERT_EQ(s.devices.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const SystemDevice &got = s.devices[i], &want = h.system.devices[i];
    EXPECT_EQ(std::tie(got.rank, got.host, got.bus_id, got.pid, got.device, got.model),
              std::tie(want.rank, want.host, want.bus_id, want.pid, want.device, want.model));
  }
  EXPECT_EQ(s.versions, h.system.versions);
  EXPECT_EQ(s.environment, h.system.environment);
  EXPECT_EQ(s.topology_json, h.system.topology_json);
  ASSERT_TRUE(s.topology);  // and read as a topology
  EXPECT_EQ(s.topology->host, "a");
  EXPECT_TRUE(s.has_link_start && s.has_link_end);
  expect_links_equal(s.link_start, h.system.link_start);
  expect_links_equal(s.link_end, h.system.link_end);
  expect_links_equal(back.link_during_run, h.link_during_run);
  EXPECT_EQ(results_header(back), written);
}

// Before the run ends the file has the links at its start alone; a run without a topology has none; an
// imported file names its source. A device's bus id is written as the backend names it, read normalised.
TEST(ResultsIo, AHeaderWritesOnlyWhatTheRunHasRead) {
  ResultsHeader h = full_header();
  h.system.has_link_end = false;
  json j = results_header(h);
  EXPECT_TRUE(j["system"]["link_state"].contains("start"));
  EXPECT_FALSE(j["system"]["link_state"].contains("end"));
  EXPECT_FALSE(j.contains("link_state_during_run"));
  h.system.has_link_start = false;
  h.system.topology_json = {{"error", "no hwloc"}};
  h.system.devices[0].bus_id = "00000000:18:00.0";
  h.config = nullptr;
  h.command_line.clear();
  h.source = "nccl-tests";
  j = results_header(h);
  EXPECT_FALSE(j["system"].contains("link_state"));
  EXPECT_FALSE(j.contains("config"));
  EXPECT_FALSE(j.contains("command_line"));
  EXPECT_EQ(j["source"], "nccl-tests");
  EXPECT_FALSE(j["system"].contains("environment"));  // an import knows none
  EXPECT_EQ(j["system"]["devices"][0]["bus_id"], "00000000:18:00.0");
  EXPECT_FALSE(j["system"]["devices"][0].contains("group"));  // pipebench's own device
  const ResultSet back = results_from_json(j, "t");
  EXPECT_FALSE(back.system.topology);
  EXPECT_FALSE(back.system.has_link_start);
  EXPECT_EQ(back.source, "nccl-tests");
  EXPECT_EQ(back.system.devices[0].bus_id, "0000:18:00.0");
  EXPECT_EQ(device_from_json(json(back.system.devices[1]), "d").pid, 4712);
  // An imported device names its nccl-tests group; a bus id its log did not say is unknown: null.
  SystemDevice imported = back.system.devices[1];
  imported.group = 3;
  imported.bus_id.clear();
  const json d = imported;
  EXPECT_EQ(d["group"], 3);
  EXPECT_TRUE(d["bus_id"].is_null()) << d.dump();
  EXPECT_EQ(device_from_json(d, "d").group, 3);
  imported.group = -1;  // a host rank of pipebench's own run has no bus id: ""
  EXPECT_EQ(json(imported)["bus_id"], "");
}

}  // namespace
}  // namespace pipebench
