// SPDX-License-Identifier: Apache-2.0
// Launch lines pasted whole, and Megatron-LM's own example scripts taken verbatim (their argument lists
// are fixtures: tests/fixtures/megatron/*.args, read from Megatron-LM at the commit each names).
#include "megatron/launch_line.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/run_pipebench.h"
#include "core/error.h"
#include "megatron/megatron_argparse.h"
#include "megatron/megatron_argument_table.h"
#include "megatron/model_args.h"
#include "megatron/plan.h"

namespace pipebench {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// One argument per line; lines starting with '#' are comments.
std::vector<std::string> fixture(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/megatron/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

std::vector<std::string> torchrun(int nproc, int nnodes, const std::vector<std::string>& args) {
  std::vector<std::string> line = {"torchrun",
                                   "--nproc_per_node",
                                   std::to_string(nproc),
                                   "--nnodes",
                                   std::to_string(nnodes),
                                   "--node_rank",
                                   "0",
                                   "--master_addr",
                                   "localhost",
                                   "--master_port",
                                   "29500",
                                   "pretrain_gpt.py"};
  line.insert(line.end(), args.begin(), args.end());
  return line;
}

std::string error(const std::vector<std::string>& args) {
  try {
    (void)make_plan(parse_megatron_args(args), 0);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

bool has_note(const Plan& p, const std::string& start) {
  return std::any_of(p.notes.begin(), p.notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
}

TEST(LaunchLine, TorchrunsWorldIsProcessesPerNodeTimesNodes) {
  const LaunchLine l =
      split_launch_line(words("torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --num-layers 2"));
  EXPECT_EQ(l.world_size, 128);
  EXPECT_EQ(l.megatron_args, words("--num-layers 2"));
  EXPECT_EQ(l.launcher, "torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py");
  EXPECT_EQ(split_launch_line(words("torchrun --nproc-per-node=4 --standalone train.py --fp16")).world_size, 4);
  EXPECT_EQ(split_launch_line(words("python -m torch.distributed.run --nnodes=2 --nproc_per_node=8 x.py")).world_size,
            16);
  EXPECT_EQ(split_launch_line(words("python pretrain_gpt.py --fp16")).world_size, 0);  // no world given
  EXPECT_EQ(split_launch_line(words("--num-layers 2")).megatron_args, words("--num-layers 2"));
}

TEST(LaunchLine, ALauncherWithoutScriptOrCountIsOneLine) {
  EXPECT_NE(error(words("torchrun --nproc_per_node 8 --num-layers 2")).find("torchrun: not a Megatron argument"),
            std::string::npos);
  EXPECT_NE(error(words("torchrun --nproc_per_node gpu pretrain_gpt.py")).find("--nproc_per_node gpu: not a count"),
            std::string::npos);
  EXPECT_NE(error(words("torchrun --nnodes 1:4 --nproc_per_node 8 pretrain_gpt.py")).find("--nnodes 1:4"),
            std::string::npos);
}

TEST(MegatronScripts, Gpt3175bGoesInVerbatimWithTheWorldOfItsTorchrunLine) {
  const std::vector<std::string> args = fixture("gpt3_175b.args");
  // As the script is (one node of 8 GPUs), tp 8 x pp 16 does not fit: the message says where 8 came from.
  EXPECT_NE(error(torchrun(8, 1, args)).find("world size (8) is not divisible"), std::string::npos);
  const Plan p = make_plan(parse_megatron_args(torchrun(8, 16, args)), 0);
  EXPECT_EQ(p.layout.world, 128);
  EXPECT_EQ(p.layout.tp, 8);
  EXPECT_EQ(p.layout.pp, 16);
  EXPECT_EQ(p.layout.dp, 1);
  EXPECT_EQ(p.args.vocab_size, 50257);  // the vocab file is not here: GPT-2's BPE, said so
  EXPECT_EQ(
      p.args.vocab_source.rfind("GPT2BPETokenizer's usual vocabulary (/data/gpt2-vocab.json is not read here)", 0), 0u)
      << p.args.vocab_source;
  EXPECT_TRUE(p.args.unknown.empty());
  EXPECT_NE(std::find(p.args.ignored.begin(), p.args.ignored.end(), "--attention-backend auto"), p.args.ignored.end());
  EXPECT_TRUE(has_note(p, "world 128 from the launcher (torchrun --nproc_per_node 8 --nnodes 16"));
}

TEST(MegatronScripts, Llama3Fp8GoesInVerbatimAndGathersItsLinearWeightsInFp8) {
  const Plan p = make_plan(parse_megatron_args(torchrun(8, 1, fixture("llama3_8b_h100_fp8.args"))), 0);
  EXPECT_EQ(p.layout.world, 8);
  EXPECT_EQ(p.layout.dp, 8);
  EXPECT_EQ(p.args.vocab_size, 128256);
  EXPECT_TRUE(p.args.distributed_optimizer);
  EXPECT_TRUE(p.args.overlap_param_gather);
  EXPECT_TRUE(p.args.fp8_param_gather);
  EXPECT_TRUE(has_note(p, "--fp8-param-gather: the TE linear weights sit in an FP8 buffer of their own"));
  std::int64_t fp8_gathers = 0;
  for (const auto& m : p.schedules.at(0).messages) {
    if (m.rank == 0 && m.op == "all_gather" && m.dtype == DType::kUint8) ++fp8_gathers;
  }
  EXPECT_GT(fp8_gathers, 0);
  for (const char* ignored :
       {"--rotary-base 1000000", "--manual-gc", "--attention-backend fused", "--fp8-format hybrid"})
    EXPECT_NE(std::find(p.args.ignored.begin(), p.args.ignored.end(), ignored), p.args.ignored.end()) << ignored;
}

TEST(MegatronScripts, Mixtral8x7bGoesInVerbatimWithTheTokenizersUsualVocabulary) {
  const std::vector<std::string> args = fixture("mixtral_8x7b.args");
  // Without a world: no GPU here gives tp x cp x pp = 4 ranks, too few for ep 8; the message says so.
  EXPECT_NE(error(args).find("no --world-size and no GPU here"), std::string::npos) << error(args);
  const Plan p = make_plan(parse_megatron_args(torchrun(8, 4, args)), 0);
  EXPECT_EQ(p.layout.world, 32);
  EXPECT_EQ(p.layout.ep, 8);
  EXPECT_EQ(p.layout.pp, 4);
  EXPECT_EQ(p.args.vocab_size, 32000);
  EXPECT_EQ(
      p.args.vocab_source,
      "Llama2Tokenizer's usual vocabulary (/data/tokenizer.model is not read here); --vocab-size N says otherwise");
  EXPECT_EQ(p.args.num_experts, 8);
}

TEST(MegatronScripts, EveryArgumentOfTheScriptsIsOneMegatronAccepts) {
  std::vector<std::string_view> names;
  for (const auto& spec : megatron_argument_table()) names.push_back(spec.option_strings);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_GT(names.size(), 500u);
  EXPECT_EQ(std::string(kMegatronArgumentsCommit).size(), 40u);
  for (const char* script : {"gpt3_175b.args", "llama3_8b_h100_fp8.args", "mixtral_8x7b.args"})
    EXPECT_NO_THROW((void)parse_megatron_argv(fixture(script), megatron_argument_table())) << script;
}

TEST(MegatronScripts, ANameMegatronWouldRefuseIsAnErrorWithTheNearestName) {
  std::vector<std::string> args = fixture("mixtral_8x7b.args");
  std::replace(args.begin(), args.end(), std::string("--pipeline-model-parallel-size"),
               std::string("--pipeline-parallel-size"));
  EXPECT_EQ(error(torchrun(8, 4, args))
                .rfind("Megatron arguments: unrecognized arguments: --pipeline-parallel-size 4 (did you mean "
                       "--pipeline-model-parallel-size?): Megatron-LM would refuse it",
                       0),
            0u);
  // End to end: one line, exit 2, and no plan.
  const e2e::Result r = e2e::run(
      "plan -- --num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 8 "
      "--max-position-embeddings 8 --micro-batch-size 1 --global-batch-size 4 "
      "--vocab-size 100 --pipeline-parallel-size 4");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err.rfind("pipebench: Megatron arguments: unrecognized arguments: --pipeline-parallel-size 4 (did you mean "
                  "--pipeline-model-parallel-size?)",
                  0),
      0u)
      << r.err;
}

TEST(MegatronScripts, ATokenizerWithoutAUsualVocabularyAsksForVocabSize) {
  const std::string base =
      "--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
      "--micro-batch-size 1 --global-batch-size 4 ";
  EXPECT_EQ(error(words(base + "--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Llama-3-8B")),
            "--tokenizer-type HuggingFaceTokenizer: its vocabulary size depends on the tokenizer model "
            "(meta-llama/Llama-3-8B), which is not read here; give --vocab-size N");
  EXPECT_EQ(error(words(base + "--tokenizer-type HuggingFaceTokenizer --vocab-size 128256")), "(no error)");
  EXPECT_NE(error(words(base)).find("missing --vocab-size or --vocab-file"), std::string::npos);
  EXPECT_NE(error(torchrun(8, 1, words(base + "--vocab-size 64 --world-size 4")))
                .find("--world-size 4 differs from the launcher's world 8"),
            std::string::npos);
}

}  // namespace
}  // namespace pipebench
