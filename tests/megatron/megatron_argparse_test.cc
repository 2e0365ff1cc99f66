// SPDX-License-Identifier: Apache-2.0
// Each expected message is what Python 3.11's argparse prints after "error: " for Megatron-LM's parser
// (add_megatron_arguments at the table's commit) given the same words.
#include "megatron/megatron_argparse.h"

#include <gtest/gtest.h>

#include <map>

#include "core/command_line.h"
#include "core/error.h"

namespace pipebench {
namespace {

std::vector<MegatronArgument> parse(const std::vector<std::string>& args) {
  return parse_megatron_argv(args, megatron_argument_table());
}

// The message without the prefix and the commit named after it.
std::string refusal(const std::vector<std::string>& args) {
  try {
    (void)parse(args);
  } catch (const UsageError& e) {
    const std::string m = e.what();
    const std::string prefix = "Megatron arguments: ";
    const std::string tail = ": Megatron-LM would refuse it (its arguments as of commit ";
    EXPECT_EQ(m.rfind(prefix, 0), 0u) << m;
    EXPECT_NE(m.find(tail), std::string::npos) << m;
    return m.substr(prefix.size(), m.find(tail) - prefix.size());
  }
  ADD_FAILURE() << "accepted";
  return "";
}

const MegatronArgument* find(const std::vector<MegatronArgument>& given, const std::string& option) {
  for (const auto& g : given)
    if (g.option == option) return &g;
  return nullptr;
}

TEST(MegatronArgparse, TheTableHasBothKindsOfListArguments) {
  std::map<std::string, MegatronArgumentSpec> by_name;
  for (const auto& spec : megatron_argument_table()) by_name[std::string(spec.option_strings)] = spec;
  // Explicit nargs in arguments.py.
  EXPECT_EQ(by_name.at("--cp-comm-type").nargs, "+");
  EXPECT_EQ(by_name.at("--data-path").nargs, "*");
  EXPECT_EQ(by_name.at("--rampup-batch-size").nargs, "3");
  // List[...] fields of the config dataclasses (ArgumentGroupFactory).
  EXPECT_EQ(by_name.at("--profile-ranks").nargs, "+");
  EXPECT_EQ(by_name.at("--profile-ranks").type, "int");
  EXPECT_EQ(by_name.at("--recompute-modules").nargs, "+");
  EXPECT_EQ(by_name.at("--transformer-impl").choices, "local transformer_engine inference_optimized");
  EXPECT_EQ(by_name.at("--fp16").nargs, "0");
}

TEST(MegatronArgparse, ListArgumentsTakeEveryValueUpToTheNextOption) {
  const auto given = parse(
      split_words("--profile-ranks 0 1 2 3 --recompute-modules mlp moe mla_up_proj layernorm --data-path 0.3 a 0.7 b "
                  "--cp-comm-type a2a p2p --fp16"));
  ASSERT_EQ(given.size(), 5u);
  EXPECT_EQ(find(given, "--profile-ranks")->values, split_words("0 1 2 3"));
  EXPECT_EQ(find(given, "--recompute-modules")->values, split_words("mlp moe mla_up_proj layernorm"));
  EXPECT_EQ(find(given, "--data-path")->values, split_words("0.3 a 0.7 b"));
  EXPECT_EQ(find(given, "--cp-comm-type")->values, split_words("a2a p2p"));
  EXPECT_TRUE(find(given, "--fp16")->values.empty());
  EXPECT_TRUE(parse(split_words("--data-path"))[0].values.empty());  // nargs '*' takes none
}

TEST(MegatronArgparse, RepeatedFlagsKeepTheLastAndEqualsGivesOneValue) {
  const auto given =
      parse(split_words("--lr 1 --fp16 --lr=-2e-4 --fp16 --profile-ranks=3 --clip-grad -1 --min-lr -.5"));
  ASSERT_EQ(given.size(), 5u);
  EXPECT_EQ(given[0].option, "--lr");  // in the order of the last occurrences
  EXPECT_EQ(given[0].values, std::vector<std::string>{"-2e-4"});
  EXPECT_EQ(find(given, "--profile-ranks")->values, std::vector<std::string>{"3"});
  EXPECT_EQ(find(given, "--clip-grad")->values, std::vector<std::string>{"-1"});  // a negative number is a value
  EXPECT_EQ(find(given, "--min-lr")->values, std::vector<std::string>{"-.5"});
}

TEST(MegatronArgparse, RefusesWhereArgparseRefusesInItsWords) {
  EXPECT_EQ(refusal(split_words("--num-layers")), "argument --num-layers: expected one argument");
  EXPECT_EQ(refusal(split_words("--lr -1e-4")), "argument --lr: expected one argument");  // -1e-4 looks like an option
  EXPECT_EQ(refusal(split_words("--profile-ranks --fp16")), "argument --profile-ranks: expected at least one argument");
  EXPECT_EQ(refusal(split_words("--rampup-batch-size 16 16")), "argument --rampup-batch-size: expected 3 arguments");
  EXPECT_EQ(refusal(split_words("--num-layers x")), "argument --num-layers: invalid int value: 'x'");
  EXPECT_EQ(refusal(split_words("--profile-ranks 0 1 two")), "argument --profile-ranks: invalid int value: 'two'");
  EXPECT_EQ(refusal(split_words("--lr 1e-4x")), "argument --lr: invalid float value: '1e-4x'");
  EXPECT_EQ(refusal(split_words("--transformer-impl loca")),
            "argument --transformer-impl: invalid choice: 'loca' (choose from 'local', 'transformer_engine', "
            "'inference_optimized') (did you mean local?)");
  EXPECT_EQ(refusal(split_words("--flash-attention-version 5")),
            "argument --flash-attention-version: invalid choice: 5 (choose from 2, 3, 4)");
  EXPECT_EQ(refusal(split_words("--fp16=1")), "argument --fp16: ignored explicit argument '1'");
  EXPECT_EQ(refusal(split_words("--num-layers 2 3")), "unrecognized arguments: 3");
  EXPECT_EQ(refusal(split_words("--num-layers 2 -- --fp16")), "unrecognized arguments: -- --fp16");
  // allow_abbrev=False: a prefix of a name is no name.
  EXPECT_EQ(refusal(split_words("--num-lay 2")), "unrecognized arguments: --num-lay 2 (did you mean --num-layers?)");
  EXPECT_EQ(refusal(split_words("--tensor-model-parallel-sz=2")),
            "unrecognized arguments: --tensor-model-parallel-sz=2 (did you mean --tensor-model-parallel-size?)");
}

TEST(MegatronArgparse, AnUnquotedScheduleIsRefusedAsMegatronRefusesIt) {
  // examples/gpt3/train_gpt3_175b_distributed.sh passes the schedule through an unquoted array.
  EXPECT_EQ(refusal(split_words("--step-batch-size-schedule 0:16 2.4B:320 4.8B:624 --num-layers 2")),
            "unrecognized arguments: 2.4B:320 4.8B:624");
  EXPECT_NO_THROW((void)parse({"--step-batch-size-schedule", "0:16 2.4B:320 4.8B:624"}));
}

TEST(MegatronArgparse, AnUnknownEnumMemberIsRefusedWithMegatronsKeyError) {
  EXPECT_EQ(refusal(split_words("--attention-backend flashy")),
            "argument --attention-backend: 'flashy' is not one of flash, fused, unfused, local, auto (Megatron-LM "
            "stops with KeyError: 'flashy')");
  EXPECT_NO_THROW((void)parse(split_words("--attention-backend auto")));
}

TEST(MegatronArgparse, HelpIsNothingToPlan) {
  EXPECT_THROW((void)parse(split_words("-h")), UsageError);
  EXPECT_THROW((void)parse(split_words("--help")), UsageError);
}

}  // namespace
}  // namespace pipebench
