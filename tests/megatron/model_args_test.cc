// SPDX-License-Identifier: Apache-2.0
// Megatron argument parsing: argparse's last value for a repeated argument, the required
// --max-position-embeddings, and the flags that change messages.
#include "megatron/model_args.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"

namespace pipebench {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const char* kBase =
    "--num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
    "--micro-batch-size 1 --global-batch-size 8 --vocab-size 1000 ";

std::string error_of(const std::string& args) {
  try {
    (void)parse_megatron_args(words(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(MegatronArgs, ARepeatedArgumentTakesItsLastValue) {
  const auto a = parse_megatron_args(words(std::string(kBase) + "--num-layers 2 --cp-comm-type a2a "
                                                                "--cp-comm-type p2p allgather --hidden-size=512"));
  EXPECT_EQ(a.num_layers, 2);
  EXPECT_EQ(a.hidden, 512);
  EXPECT_EQ(a.cp_comm_type, (std::vector<std::string>{"p2p", "allgather"}));
}

TEST(MegatronArgs, MaxPositionEmbeddingsIsRequiredAndCoversTheSequence) {
  EXPECT_EQ(error_of("--num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --micro-batch-size 1 "
                     "--global-batch-size 8 --vocab-size 1000"),
            "Megatron arguments: missing --max-position-embeddings");
  EXPECT_EQ(error_of(std::string(kBase) + "--max-position-embeddings 32"),
            "max_position_embeddings (32) must be greater than or equal to seq_length (64)");
}

TEST(MegatronArgs, FlagsThatChangeMessagesAreParsedNotIgnored) {
  const auto a = parse_megatron_args(
      words(std::string(kBase) +
            "--no-create-attention-mask-in-dataloader --cross-entropy-loss-fusion --qk-layernorm "
            "--calculate-per-token-loss --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather "
            "--num-distributed-optimizer-instances 2 --tp-comm-overlap --defer-embedding-wgrad-compute "
            "--ddp-num-buckets 3 --ddp-pad-buckets-for-high-nccl-busbw --transformer-impl local"));
  EXPECT_FALSE(a.create_attention_mask);
  EXPECT_TRUE(a.cross_entropy_loss_fusion && a.qk_layernorm && a.calculate_per_token_loss);
  EXPECT_TRUE(a.overlap_param_gather && a.tp_comm_overlap && a.defer_embedding_wgrad);
  EXPECT_EQ(a.distributed_optimizer_instances, 2);
  EXPECT_EQ(a.ddp_num_buckets, 3);
  EXPECT_TRUE(a.ddp_pad_buckets_for_high_nccl_busbw);
  EXPECT_FALSE(a.transformer_engine);
  EXPECT_TRUE(a.ignored.empty());
  EXPECT_TRUE(a.unknown.empty());
  EXPECT_NE(error_of(std::string(kBase) + "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te")
                .find("disabled by Megatron"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "--overlap-param-gather").find("needs --use-distributed-optimizer"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kBase) + "--num-distributed-optimizer-instances 2").find("needs"), std::string::npos);
}

// The list of ignored arguments is written to plan.json and the console: redacted like the command line
// (URL passwords, token=/key=/password= values). A name Megatron would refuse is an error that names the
// flag and never its value.
TEST(MegatronArgs, IgnoredArgumentsHideCredentials) {
  const auto a =
      parse_megatron_args(words(std::string(kBase) + "--load s3://A:S4@b/x --wandb-exp-name token=S1 --tensorboard-dir "
                                                     "https://u:S2@tb.example/x"));
  EXPECT_EQ(a.ignored, (std::vector<std::string>{"--load 's3://<redacted>@b/x'", "--wandb-exp-name token=<redacted>",
                                                 "--tensorboard-dir 'https://<redacted>@tb.example/x'"}));
  try {
    (void)parse_megatron_args(words(std::string(kBase) + "--wandb-api-key S3"));
    ADD_FAILURE() << "an argument Megatron refuses was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("S3"), std::string::npos) << e.what();
  }
}

// Integers as Megatron-LM's argparse (type=int, Python's int()) reads them: "0x10" and "1e3" are refused
// in argparse's words (CLI11 alone took them as 16 and 1000), and "0016" is 16 (CLI11 alone: 14, octal).
TEST(MegatronArgs, IntegersAreDecimalAsPythonIntReadsThem) {
  for (const char* bad : {"0x10", "1e3", "16.0", "0X1F"}) {
    const std::string e = error_of(std::string(kBase) + "--global-batch-size " + bad);
    EXPECT_EQ(
        e.rfind("Megatron arguments: argument --global-batch-size: invalid int value: '" + std::string(bad) + "'", 0),
        0u)
        << bad << ": " << e;
  }
  for (const char* bad : {"0b10", "1_6", "_16"}) {
    EXPECT_NE(error_of(std::string(kBase) + "--global-batch-size " + bad), "") << bad;
  }
  EXPECT_EQ(parse_megatron_args(words(std::string(kBase) + "--global-batch-size 0016")).global_batch, 16);
  EXPECT_EQ(parse_megatron_args(words(std::string(kBase) + "--num-layers +08")).num_layers, 8);
}

}  // namespace
}  // namespace pipebench
