// SPDX-License-Identifier: Apache-2.0
// Launch lines from outside pipebench, planned as given: the seed case's two lines (verbatim) and the
// argument vectors of the launch scripts under Megatron-LM's examples/ (tests/fixtures/megatron/examples/
// launches.json, captured by capture_examples.py with Megatron's own verdict on each).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_pipebench.h"
#include "core/command_line.h"
#include "core/error.h"
#include "megatron/megatron_argparse.h"
#include "megatron/megatron_argument_table.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"

namespace pipebench {
namespace {

// The seed case's launch lines (Megatron-LM PP4 on 4 x RTX 3090), verbatim: torchrun's words, then the arguments
// after pretrain_gpt.py as the fixture holds them (the README plans the first from its file); --profile-ranks is
// a list, --fp16 and --clip-grad are given twice.
std::string seed_line(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/megatron/" + name);
  std::string args;
  std::getline(in, args);
  EXPECT_GT(args.size(), 500u) << name;
  return "torchrun --nproc_per_node 4 --nnodes 1 --node_rank 0 --master_addr localhost --master_port 7000 "
         "pretrain_gpt.py " +
         args;
}
TEST(ExampleLaunches, TheSeedLinesPlanAsGiven) {
  const std::string seed_1f1b = seed_line("seed_pp4.line");
  const std::string seed_interleaved = seed_line("seed_pp4_vpp.line");
  const e2e::Result plain = e2e::run("plan -- " + seed_1f1b);
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.out.find("--profile-ranks 0 1 2 3"), std::string::npos);  // listed as ignored, whole
  EXPECT_EQ(plain.out.find("unknown"), std::string::npos);
  const e2e::Result interleaved = e2e::run("plan -- " + seed_interleaved);
  EXPECT_EQ(interleaved.status, 0) << interleaved.err;
  EXPECT_NE(interleaved.out.find("schedule interleaved v=4"), std::string::npos) << interleaved.out;
  const Plan p = make_plan(parse_megatron_args(split_words(seed_interleaved)), 0);
  EXPECT_EQ(p.layout.vp, 4);
  EXPECT_EQ(p.args.params_dtype, DType::kHalf);
  EXPECT_EQ(p.layout.pp, 4);
}

nlohmann::json launches() {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/megatron/examples/launches.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

TEST(ExampleLaunches, CapturedAtTheTablesCommit) {
  const nlohmann::json j = launches();
  EXPECT_EQ(j.at("megatron_lm_commit").get<std::string>(), kMegatronArgumentsCommit);
  EXPECT_GE(j.at("launches").size(), 20u);
}

// Megatron's parser accepts the vector, or refuses it with the message pipebench gives (argparse's words,
// then the nearest name where one is near, then the commit).
TEST(ExampleLaunches, EachIsRefusedExactlyWhereMegatronRefuses) {
  int accepted = 0, refused = 0;
  const nlohmann::json all = launches();
  for (const auto& launch : all.at("launches")) {
    const auto args = launch.at("args").get<std::vector<std::string>>();
    const std::string verdict = launch.at("megatron").get<std::string>();
    const std::string script = launch.at("script").get<std::string>();
    if (verdict == "accepted") {
      EXPECT_NO_THROW((void)parse_megatron_argv(args, megatron_argument_table())) << script;
      ++accepted;
      continue;
    }
    ++refused;
    try {
      (void)parse_megatron_argv(args, megatron_argument_table());
      ADD_FAILURE() << script << ": accepted; Megatron says " << verdict;
    } catch (const UsageError& e) {
      // A value after a credential-like name is redacted (core/command_line.h): the words up to it agree.
      const std::string m = e.what();
      const std::string expected = "Megatron arguments: " + verdict;
      const std::size_t redacted = m.find("<redacted>");
      const std::size_t same = redacted == std::string::npos ? expected.size() : redacted;
      EXPECT_EQ(m.substr(0, same), expected.substr(0, same)) << script << "\n" << m;
      if (redacted == std::string::npos) {  // then only the nearest name and the commit follow
        const std::string rest = m.substr(same);
        EXPECT_TRUE(rest.rfind(" (did you mean ", 0) == 0 || rest.rfind(": Megatron-LM would refuse it", 0) == 0) << m;
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

// A vector Megatron accepts is never called unknown or unrecognized by plan: it plans, or pipebench says
// what it cannot plan (an unread tokenizer, a model that is not decoder-only, Megatron's validation).
TEST(ExampleLaunches, WhatMegatronAcceptsIsNeverUnknownToPlan) {
  int planned = 0;
  const nlohmann::json all = launches();
  for (const auto& launch : all.at("launches")) {
    if (launch.at("megatron").get<std::string>() != "accepted") continue;
    std::vector<std::string> line = launch.at("launcher").get<std::vector<std::string>>();
    line.push_back(launch.at("entry").get<std::string>());
    const auto args = launch.at("args").get<std::vector<std::string>>();
    line.insert(line.end(), args.begin(), args.end());
    try {
      const MegatronArgs a = parse_megatron_args(line);
      EXPECT_TRUE(a.unknown.empty());
      ++planned;
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find("would refuse it"), std::string::npos) << m;
      EXPECT_EQ(m.find("unrecognized"), std::string::npos) << m;
    }
  }
  EXPECT_GE(planned, 1);  // examples/llama/train_llama3_8b_h100_fp8.sh
}

// examples/gpt3: the schedule's value through an unquoted array is split by the shell, and refused.
TEST(ExampleLaunches, TheGpt3ExampleIsRefusedAsMegatronRefusesIt) {
  const nlohmann::json all = launches();
  for (const auto& launch : all.at("launches")) {
    if (launch.at("script") != "examples/gpt3/train_gpt3_175b_distributed.sh") continue;
    EXPECT_EQ(launch.at("megatron"), "unrecognized arguments: 2.4B:320 4.8B:624 7.2B:928 9.6B:1232 12B:1536");
    std::string line = "plan --";
    for (const auto& w : launch.at("args")) line += " " + w.get<std::string>();
    const e2e::Result r = e2e::run(line);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("pipebench: Megatron arguments: unrecognized arguments: 2.4B:320 4.8B:624 7.2B:928 "
                          "9.6B:1232 12B:1536: Megatron-LM would refuse it",
                          0),
              0u)
        << r.err;
    return;
  }
  ADD_FAILURE() << "no gpt3 launch captured";
}

}  // namespace
}  // namespace pipebench
