// SPDX-License-Identifier: Apache-2.0
// pipebench.plan/1: round trips through Plan, and one clear line per kind of bad file.
#include "io/plan_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

using nlohmann::json;

Plan plan_of(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return make_plan(parse_megatron_args(w), 0);
}

const char* kSmall =
    "--num-layers 16 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
    "--micro-batch-size 1 "
    "--global-batch-size 8 --pipeline-model-parallel-size 4 --bf16 --vocab-size 1000 --world-size 4";
const char* kWide =
    "--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --num-query-groups 4 --group-query-attention --swiglu "
    "--seq-length 512 --max-position-embeddings 512 --micro-batch-size 2 --global-batch-size 64 "
    "--pipeline-model-parallel-size 4 "
    "--tensor-model-parallel-size 2 --context-parallel-size 2 --sequence-parallel --fp16 --vocab-size 32000 "
    "--world-size 32 --overlap-grad-reduce --use-distributed-optimizer --no-overlap-p2p-communication "
    "--num-layers-per-virtual-pipeline-stage 3 --rank-order tp-pp-dp";

std::string error_of(const json& j) {
  try {
    (void)plan_from_json(j, "--plan p.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PlanIo, RoundTripGivesTheSameJsonAndTheSameTypedPlan) {
  for (const char* args : {kSmall, kWide}) {
    const Plan built = plan_of(args);
    const json first = plan_to_json(built);
    const Plan back = plan_from_json(first, "test");
    EXPECT_EQ(plan_to_json(back), first) << args;
    EXPECT_EQ(back.layout.pp_groups, built.layout.pp_groups);
    EXPECT_EQ(back.layout.dp_cp_groups, built.layout.dp_cp_groups);  // rebuilt, not in the file
    EXPECT_EQ(back.layout.tp_index, built.layout.tp_index);
    EXPECT_EQ(back.args.overlap_p2p, built.args.overlap_p2p);
    EXPECT_EQ(back.args.version, built.args.version);
    ASSERT_EQ(back.schedules.size(), built.schedules.size());
    for (std::size_t i = 0; i < back.schedules.size(); ++i) {
      EXPECT_EQ(back.schedules[i].messages.size(), built.schedules[i].messages.size());
      EXPECT_EQ(back.schedules[i].warmup, built.schedules[i].warmup);
      // What the schedule generators read from the typed plan matches the plan built from arguments.
      EXPECT_EQ(megatron_shape(back.args, back.layout, back.schedules[i].id).table,
                megatron_shape(built.args, built.layout, built.schedules[i].id).table);
    }
  }
}

TEST(PlanIo, NewModelFieldsRoundTripAndOlderFilesWithoutThemStillRead) {
  const Plan built = plan_of(std::string(kSmall) +
                             " --recompute-granularity full --recompute-method block --recompute-num-layers 1 "
                             "--transformer-impl local");
  json j = plan_to_json(built);
  const Plan back = plan_from_json(j, "test");
  EXPECT_EQ(back.args.recompute_granularity, "full");
  EXPECT_EQ(back.args.recompute_method, "block");
  EXPECT_EQ(back.args.recompute_num_layers, 1);
  EXPECT_FALSE(back.args.transformer_engine);
  EXPECT_EQ(back.args.cp_comm_type, (std::vector<std::string>{"p2p"}));
  // A pipebench.plan/1 file written before these fields: Megatron's defaults.
  for (const char* key : {"cp_comm_type", "hierarchical_context_parallel_sizes", "recompute_granularity",
                          "recompute_method", "recompute_num_layers", "transformer_impl"}) {
    j["model"].erase(key);
  }
  const Plan old = plan_from_json(j, "test");
  EXPECT_EQ(old.args.recompute_granularity, "");
  EXPECT_TRUE(old.args.transformer_engine);
  EXPECT_EQ(old.args.cp_comm_type, (std::vector<std::string>{"p2p"}));
  EXPECT_EQ(old.schedules.at(0).messages.size(), built.schedules.at(0).messages.size());
  j["model"]["cp_comm_type"] = json::array({"ring"});
  try {
    (void)plan_from_json(j, "test");
    ADD_FAILURE() << "a bad cp_comm_type was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("model.cp_comm_type"), std::string::npos) << e.what();
  }
}

TEST(PlanIo, PipelineSplitAndFp8FieldsRoundTripOnlyWhereSet) {
  const Plan built = plan_of(std::string(kSmall) +
                             " --decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2 "
                             "--use-distributed-optimizer --fp8-param-gather --fp8-format hybrid");
  const json j = plan_to_json(built);
  EXPECT_EQ(j["model"]["decoder_first_pipeline_num_layers"], 2);
  EXPECT_EQ(j["model"]["decoder_last_pipeline_num_layers"], 2);
  EXPECT_EQ(j["model"]["fp8_param_gather"], true);
  EXPECT_EQ(j["params"][1]["layers"], 6);  // 12 middle layers over 2 middle stages
  const Plan back = plan_from_json(j, "test");
  EXPECT_EQ(plan_to_json(back), j);
  EXPECT_EQ(back.args.first_stage_layers, 2);
  EXPECT_TRUE(back.args.fp8_param_gather);
  EXPECT_EQ(back.schedules.at(0).params.at(3).layers, 2);
  // An even plan writes none of the fields (its file is as before).
  const json even = plan_to_json(plan_of(kSmall));
  for (const char* key :
       {"decoder_first_pipeline_num_layers", "decoder_last_pipeline_num_layers",
        "account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split", "fp8_param_gather"}) {
    EXPECT_FALSE(even["model"].contains(key)) << key;
  }
  EXPECT_FALSE(even["params"][0].contains("layers"));
  // A split the layout cannot hold is one line naming the field.
  json bad = j;
  bad["model"]["decoder_first_pipeline_num_layers"] = 3;
  EXPECT_NE(error_of(bad).find("layout.pp"), std::string::npos) << error_of(bad);
}

TEST(PlanIo, WrongSchemaIsNamed) {
  EXPECT_EQ(error_of(json{{"schema", "pipebench.results/1"}}),
            "--plan p.json: schema \"pipebench.results/1\" is not pipebench.plan/1");
  EXPECT_EQ(error_of(json::array()), "--plan p.json: not a pipebench plan (no \"schema\")");
}

TEST(PlanIo, MissingAndMistypedFieldsAreNamed) {
  const json good = plan_to_json(plan_of(kSmall));
  json j = good;
  j["layout"].erase("pp");
  EXPECT_EQ(error_of(j), "--plan p.json: \"layout.pp\" is missing");
  j = good;
  j["model"]["hidden_size"] = "1024";
  EXPECT_EQ(error_of(j), "--plan p.json: \"model.hidden_size\" is not an integer");
  j = good;
  j["schedules"][0]["messages"][2]["bytes"] = 1.5;
  EXPECT_EQ(error_of(j), "--plan p.json: \"schedules[0].messages[2].bytes\" is not a 64-bit integer");
  j = good;
  j["schedules"][0]["messages"][0]["dtype"] = "float13";
  EXPECT_EQ(error_of(j), "--plan p.json: \"schedules[0].messages[0].dtype\" is not a dtype name (\"float13\")");
  j = good;
  j["schedules"][0]["messages"][0]["phase"] = "later";
  EXPECT_EQ(error_of(j), "--plan p.json: \"schedules[0].messages[0].phase\" is not a phase (\"later\")");
  j = good;
  j["groups"]["pp"][0][1] = 3;
  EXPECT_EQ(error_of(j), "--plan p.json: \"groups.pp\" does not follow from the layout's sizes and rank order");
  j = good;
  j["layout"]["world"] = 8;
  EXPECT_EQ(error_of(j), "--plan p.json: \"layout.world\" is not tp x cp x dp x pp");
  j = good;
  j["schedules"][0]["warmup"] = json::array({1, 2});
  EXPECT_EQ(error_of(j), "--plan p.json: \"schedules[0].warmup\" does not have one entry per pipeline rank");
  for (const int w : {2, 4, 9}) {  // 1F1B on 4 ranks, m 8: rank 0 warms up with 3 forwards, no other count
    j = good;
    j["schedules"][0]["warmup"][0] = w;
    EXPECT_EQ(error_of(j), "--plan p.json: \"schedules[0].warmup\" says " + std::to_string(w) +
                               " forwards on pipeline rank 0, but these arguments warm up 3");
  }
  j = good;
  j["schedules"].push_back(good["schedules"][0]);
  EXPECT_EQ(error_of(j).find("--plan p.json: \"schedules[" + std::to_string(good["schedules"].size()) +
                             "]\" repeats schedule 1f1b of schedules[0]"),
            0u)
      << error_of(j);
  j = good;
  j["model"]["megatron_version"] = "v1";
  EXPECT_EQ(error_of(j), "--plan p.json: \"model.megatron_version\" is not \"main\" or \"core_v0.9\"");
}

// Fields the plan derives from the model and layout are read back only as derived: an edited value would
// be printed and written into the prediction as if pipebench had computed it.
TEST(PlanIo, DerivedFieldsThatDoNotFollowFromTheLayoutAreNamed) {
  const json good = plan_to_json(plan_of(kSmall));
  ASSERT_EQ(good["schedules"][0]["bubble_ideal"], 0.375);  // (4 - 1) / (1 x 8)
  json j = good;
  j["schedules"][0]["bubble_ideal"] = -1;
  EXPECT_EQ(error_of(j),
            "--plan p.json: \"schedules[0].bubble_ideal\" is -1, but 4 pipeline ranks, v 1 and 8 "
            "microbatches make (p-1)/(v m) = 0.375");
  j = good;
  j["schedules"][0]["bubble_ideal"] = 0.5;
  EXPECT_NE(error_of(j).find("\"schedules[0].bubble_ideal\" is 0.5, but"), std::string::npos) << error_of(j);
  j = good;
  j["valid_v"] = json::array({3, 5});
  EXPECT_EQ(error_of(j), "--plan p.json: \"valid_v\" is [3,5], not the model's valid v [2,4]");
  j = good;
  j["params"][0]["params"] = -5;
  EXPECT_EQ(error_of(j),
            "--plan p.json: \"params\" is not a copy of schedules[0].params (the plan writes the first "
            "schedule's counts there)");
  EXPECT_EQ(error_of(good), "(no error)");
}

TEST(PlanIo, MessagesThatNoPlanCanHoldAreBadInputNotACrashOrWrongData) {
  const json good = plan_to_json(plan_of(kSmall));
  ASSERT_EQ(good["schedules"][0]["messages"][0]["op"], "recv");  // rank 0 and 1 (pp 4, world 4)
  const std::string m0 = "--plan p.json: \"schedules[0].messages[0].";
  std::size_t coll = 0;  // the first collective of schedule 0
  while (good["schedules"][0]["messages"][coll]["op"] == "send" ||
         good["schedules"][0]["messages"][coll]["op"] == "recv")
    ++coll;
  const std::string mc = "--plan p.json: \"schedules[0].messages[" + std::to_string(coll) + "].";
  json j = good;
  j["schedules"][0]["messages"][coll]["group"] = json::array();
  EXPECT_EQ(error_of(j), mc + "group\" is empty");
  j = good;
  j["schedules"][0]["messages"][coll]["group"] = {0, 0};
  j["schedules"][0]["messages"][coll]["rank"] = 0;
  EXPECT_EQ(error_of(j), mc + "group\" repeats a rank");
  j = good;
  j["schedules"][0]["messages"][coll]["group"] = {0, 4};
  EXPECT_EQ(error_of(j), mc + "group\" names a rank outside the world");
  j = good;
  j["schedules"][0]["messages"][0]["group"] = {2, 3};
  EXPECT_EQ(error_of(j), m0 + "group\" does not hold the rank");
  j = good;
  j["schedules"][0]["messages"][0]["rank"] = 7;
  EXPECT_EQ(error_of(j), m0 + "rank\" is outside the world (4)");
  j = good;
  j["schedules"][0]["messages"][0]["peer"] = 0;
  EXPECT_EQ(error_of(j), m0 + "peer\" is not the other rank of the group");
  j = good;
  j["schedules"][0]["messages"][0]["op"] = "all_to_all";
  EXPECT_EQ(error_of(j), m0 + "op\" is not a plan op (\"all_to_all\")");
  j = good;
  j["schedules"][0]["messages"][0]["bytes"] = 3;
  EXPECT_EQ(error_of(j), m0 + "bytes\" is not elements x dtype size");
  j = good;
  j["schedules"][0]["messages"][0]["elements"] = std::int64_t{1} << 62;
  EXPECT_EQ(error_of(j), m0 + "bytes\" is not elements x dtype size");  // the product overflows: never wraps
  j = good;
  j["layout"]["pp"] = 0;
  EXPECT_EQ(error_of(j), "--plan p.json: \"layout\" has a size below 1");
  j = good;
  j["schedules"][0]["params"][0]["pp_rank"] = 9;
  EXPECT_EQ(error_of(j),
            "--plan p.json: \"schedules[0].params[0]\" is not a pipeline rank and chunk of this schedule with a "
            "count >= 0");
}

TEST(PlanIo, InScheduleCollectivesCarryTheirCallsPerPassAndAFileWithoutThemIsRefused) {
  const Plan built = plan_of(kWide);  // TP with SP, CP: collectives in forward and backward passes
  const json good = plan_to_json(built);
  const json& msgs = good["schedules"][0]["messages"];
  std::size_t inside = msgs.size(), after = msgs.size();
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const std::string op = msgs[i]["op"], phase = msgs[i]["phase"];
    if (op == "send" || op == "recv") {
      EXPECT_FALSE(msgs[i].contains("calls")) << i;
      continue;
    }
    if (phase == "after") {
      EXPECT_FALSE(msgs[i].contains("calls")) << i;
      after = std::min(after, i);
      continue;
    }
    ASSERT_TRUE(msgs[i].contains("calls")) << i;
    const json& c = msgs[i]["calls"];
    EXPECT_EQ(c["forward"].get<std::int64_t>() + c["backward"].get<std::int64_t>() + c["recompute"].get<std::int64_t>(),
              msgs[i]["count"].get<std::int64_t>())
        << i;
    if (inside == msgs.size() && c["forward"].get<std::int64_t>() > 0 && c["backward"].get<std::int64_t>() > 0)
      inside = i;
  }
  ASSERT_LT(inside, msgs.size());  // a TP collective of both passes
  ASSERT_LT(after, msgs.size());
  // The typed plan holds them as built.
  const Plan back = plan_from_json(good, "test");
  EXPECT_EQ(back.schedules[0].messages[inside].passes.forward, built.schedules[0].messages[inside].passes.forward);
  EXPECT_EQ(back.schedules[0].messages[inside].passes.backward, built.schedules[0].messages[inside].passes.backward);
  const std::string at = "--plan p.json: \"schedules[0].messages[" + std::to_string(inside) + "].calls";
  json j = good;
  j["schedules"][0]["messages"][inside].erase("calls");
  EXPECT_EQ(error_of(j), at + "\" is missing: an in-schedule collective needs its calls per pass (plan the model again "
                              "with this version of pipebench plan)");
  j = good;
  j["schedules"][0]["messages"][inside]["calls"]["forward"] = j["schedules"][0]["messages"][inside]["count"];
  EXPECT_EQ(error_of(j), at + "\" does not add up to the message's count (" +
                             std::to_string(msgs[inside]["count"].get<std::int64_t>()) + ")");
  j = good;
  j["schedules"][0]["messages"][inside]["calls"]["recompute"] = -1;
  EXPECT_EQ(error_of(j), at + "\" has a negative count");
  j = good;
  j["schedules"][0]["messages"][inside]["calls"] = 3;
  EXPECT_EQ(error_of(j), at + "\" is not an object");
  // A collective after the pipeline runs in no pass: counts there are ignored, never required.
  j = good;
  j["schedules"][0]["messages"][after].erase("calls");
  EXPECT_EQ(error_of(j), "(no error)");
}

TEST(PlanIo, SizesBeyondTheLimitsAreRefused) {
  const json good = plan_to_json(plan_of(kSmall));
  json j = good;
  j["layout"]["microbatches"] = 2000000;
  EXPECT_EQ(error_of(j), "--plan p.json: \"layout.microbatches\" is above the limit of 16384");
  j = good;
  j["model"]["hidden_size"] = -1024;
  EXPECT_EQ(error_of(j), "--plan p.json: \"model.hidden_size\" is below 1");
  j = good;
  j["model"]["num_layers"] = 1 << 20;
  EXPECT_EQ(error_of(j), "--plan p.json: \"model.num_layers\" is above the limit of 4096");
}

TEST(PlanIo, LoadPlanNamesTheFlagAndFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("plan_io_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "p.json").string();
  std::ofstream(path) << plan_to_json(plan_of(kSmall)).dump();
  EXPECT_EQ(load_plan("--plan", path).layout.pp, 4);
  std::ofstream(path) << "{\"schema\": \"pipebench.plan/1\"}";
  try {
    (void)load_plan("--plan", path);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--plan " + path + ": \"model\" is missing");
  }
  std::filesystem::remove_all(dir);
}

TEST(PlanIo, MoePlansCarryTheExpertLayoutGroupsAndRoutingDependence) {
  // 8 experts, EP 2, TP 2 with SP, PP 2, world 16: expert dp = 16 / (2 x 2 x 2) = 2.
  const Plan built = plan_of(
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 256 --max-position-embeddings 256 "
      "--micro-batch-size 1 --global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
      "--sequence-parallel --bf16 --vocab-size 1000 --world-size 16 --num-experts 8 --expert-model-parallel-size 2 "
      "--moe-token-dispatcher-type alltoall --moe-layer-freq [1,0,1,1]");
  json j = plan_to_json(built);
  EXPECT_EQ(j["layout"]["expert_dp"], 2);
  EXPECT_EQ(j["groups"]["ep"][0], json({0, 2}));
  EXPECT_EQ(j["model"]["moe_layer_pattern"], json({1, 0, 1, 1}));
  const Plan back = plan_from_json(j, "test");
  EXPECT_EQ(plan_to_json(back), j);
  EXPECT_EQ(back.layout.expert_dp_groups, built.layout.expert_dp_groups);
  EXPECT_EQ(back.args.moe_dispatcher, "alltoall");
  std::size_t dependent = 0;
  for (const auto& m : back.schedules.at(0).messages) dependent += m.routing_dependent ? 1 : 0;
  EXPECT_GT(dependent, 0u);
  // A dense plan has no expert fields in its layout or groups, and no routing_dependent key.
  const json dense = plan_to_json(plan_of(kSmall));
  EXPECT_FALSE(dense["layout"].contains("ep"));
  EXPECT_FALSE(dense["groups"].contains("expert_dp"));
  for (const auto& m : dense["schedules"][0]["messages"]) EXPECT_FALSE(m.contains("routing_dependent"));
  // Groups that do not follow from the expert sizes, and sizes that do not make the world, are named.
  json bad = j;
  bad["groups"]["expert_dp"][0] = json({0, 9});
  EXPECT_NE(error_of(bad).find("groups.expert_dp"), std::string::npos) << error_of(bad);
  bad = j;
  bad["layout"]["expert_dp"] = 3;
  EXPECT_NE(error_of(bad).find("ep x expert_tp x expert_dp x pp"), std::string::npos) << error_of(bad);
  bad = j;
  bad["model"]["moe_layer_pattern"] = json({1, 0});
  EXPECT_NE(error_of(bad).find("model.moe_layer_pattern"), std::string::npos) << error_of(bad);
}

TEST(PlanIo, BatchIdsRoundTripAndAPlanWithoutThemStillLoads) {
  // kSmall, 1F1B, rank 1 of pp 4, m 8: W 2, R 6, so its send_forward_recv_backward batch (send to 2, recv
  // from 2) is issued 6 times; both messages carry the batch's id and call, in the file and back.
  const Plan built = plan_of(kSmall);
  const json j = plan_to_json(built);
  int in_batch = 0, batch = -1;
  for (const auto& m : j["schedules"][0]["messages"]) {
    if (m["rank"] == 1 && m.contains("call") && m["call"] == "send_forward_recv_backward") {
      EXPECT_EQ(m["count"], 6);
      if (batch >= 0) {
        EXPECT_EQ(m["batch"], batch);
      }
      batch = m["batch"];
      ++in_batch;
    }
    if (m["op"] != "send" && m["op"] != "recv") {
      EXPECT_FALSE(m.contains("batch")) << m;
    }
  }
  EXPECT_EQ(in_batch, 2);
  const Plan back = plan_from_json(j, "test");
  for (std::size_t i = 0; i < built.schedules[0].messages.size(); ++i) {
    EXPECT_EQ(back.schedules[0].messages[i].batch, built.schedules[0].messages[i].batch);
    EXPECT_EQ(back.schedules[0].messages[i].call, built.schedules[0].messages[i].call);
  }
  // A plan written before batch ids: the same messages, each alone (batch -1), written back without them.
  json old = j;
  for (auto& s : old["schedules"])
    for (auto& m : s["messages"]) {
      m.erase("batch");
      m.erase("call");
    }
  const Plan plain = plan_from_json(old, "old");
  for (const auto& s : plain.schedules)
    for (const auto& m : s.messages) ASSERT_EQ(m.batch, -1);
  EXPECT_EQ(plan_to_json(plain)["schedules"], old["schedules"]);
}

TEST(PlanIo, BadBatchIdsAreOneClearLine) {
  const json good = plan_to_json(plan_of(kSmall));
  auto first = [&](const std::string& op) {
    const auto& msgs = good["schedules"][0]["messages"];
    for (std::size_t i = 0; i < msgs.size(); ++i)
      if (msgs[i]["op"] == op) return i;
    return msgs.size();
  };
  json neg = good;
  neg["schedules"][0]["messages"][first("send")]["batch"] = -2;
  EXPECT_NE(error_of(neg).find("batch\" is negative"), std::string::npos) << error_of(neg);
  json coll = good;
  coll["schedules"][0]["messages"][first("all_reduce")]["batch"] = 0;
  coll["schedules"][0]["messages"][first("all_reduce")]["call"] = "x";
  EXPECT_NE(error_of(coll).find("is set on a collective"), std::string::npos) << error_of(coll);
  json no_call = good;
  no_call["schedules"][0]["messages"][first("send")].erase("call");
  EXPECT_NE(error_of(no_call).find("call"), std::string::npos) << error_of(no_call);
  // Two messages of one batch with different counts cannot be one call issued `count` times.
  json counts = good;
  for (auto& m : counts["schedules"][0]["messages"]) {
    if (m["rank"] == 1 && m.contains("call") && m["call"] == "send_forward_recv_backward" && m["op"] == "recv") {
      m["count"] = 5;
    }
  }
  EXPECT_NE(error_of(counts).find("with another call or count than message"), std::string::npos) << error_of(counts);
}

// Message ids are unique across the plan: a repeated id, in one schedule or in two, names both messages
// (predict refuses such a file).
TEST(PlanIo, ARepeatedMessageIdNamesBothMessages) {
  const json good = plan_to_json(plan_of(kSmall + std::string(" --num-layers-per-virtual-pipeline-stage 2")));
  ASSERT_GE(good["schedules"].size(), 2u);
  json same = good;
  same["schedules"][0]["messages"][3]["id"] = same["schedules"][0]["messages"][1]["id"];
  EXPECT_NE(error_of(same).find("schedules[0].messages[3].id\" is "), std::string::npos) << error_of(same);
  EXPECT_NE(error_of(same).find("the id of schedules[0].messages[1] too"), std::string::npos) << error_of(same);
  json across = good;
  across["schedules"][1]["messages"][0]["id"] = across["schedules"][0]["messages"][2]["id"];
  EXPECT_NE(error_of(across).find("the id of schedules[0].messages[2] too"), std::string::npos) << error_of(across);
}

}  // namespace
}  // namespace pipebench
