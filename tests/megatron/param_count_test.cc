// SPDX-License-Identifier: Apache-2.0
// Parameter tensors in Megatron's registration order (TE and local specs) and the shared-embedding marks.
#include "megatron/param_count.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pipebench {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> names(const std::vector<ParamTensor>& t) {
  std::vector<std::string> out;
  for (const auto& x : t) out.push_back(x.name);
  return out;
}

const char* kTiny =
    "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
    "--micro-batch-size 1 --global-batch-size 1 --pipeline-model-parallel-size 2 --vocab-size 1000 ";

TEST(ParamCount, RegistrationOrderPutsLinearProjBeforeLinearQkv) {
  // TE spec (the default): the norms are parameters of linear_qkv and linear_fc1.
  const auto te = layer_tensors(parse_megatron_args(words(kTiny)));
  EXPECT_EQ(names(te),
            (std::vector<std::string>{"self_attention.linear_proj.weight", "self_attention.linear_proj.bias",
                                      "self_attention.linear_qkv.layer_norm_weight",
                                      "self_attention.linear_qkv.layer_norm_bias", "self_attention.linear_qkv.weight",
                                      "self_attention.linear_qkv.bias", "mlp.linear_fc1.layer_norm_weight",
                                      "mlp.linear_fc1.layer_norm_bias", "mlp.linear_fc1.weight", "mlp.linear_fc1.bias",
                                      "mlp.linear_fc2.weight", "mlp.linear_fc2.bias"}));
  // Local spec: input_layernorm and pre_mlp_layernorm modules; q/k norms after linear_qkv.
  const auto local =
      layer_tensors(parse_megatron_args(words(std::string(kTiny) + "--transformer-impl local --qk-layernorm")));
  EXPECT_EQ(names(local).front(), "input_layernorm.weight");
  EXPECT_EQ(names(local)[2], "self_attention.linear_proj.weight");
  EXPECT_EQ(names(local)[6], "self_attention.q_layernorm.weight");
  EXPECT_EQ(names(local)[10], "pre_mlp_layernorm.weight");
  // Same total either way: 4h^2+4h + 2hf+f+h + 4h (h 64, f 256) = 16640 + 33088 + 256 = 49,984, and the
  // q/k LayerNorms add 4 d = 4 x 16.
  EXPECT_EQ(total_elements(te), 49984);
  EXPECT_EQ(total_elements(local), 49984 + 64);
}

TEST(ParamCount, TheTiedWordEmbeddingIsSharedOnTheFirstAndLastStageOnly) {
  const auto a = parse_megatron_args(words(kTiny));
  const Layout l = make_layout(a, 0);
  EXPECT_TRUE(chunk_tensors(a, l, 0, 0, 1).front().shared_embedding);
  EXPECT_TRUE(chunk_tensors(a, l, 1, 0, 1).back().shared_embedding);
  const auto untied = parse_megatron_args(words(std::string(kTiny) + "--untie-embeddings-and-output-weights"));
  EXPECT_FALSE(chunk_tensors(untied, l, 0, 0, 1).front().shared_embedding);
  EXPECT_FALSE(chunk_tensors(untied, l, 1, 0, 1).back().shared_embedding);
}

TEST(ParamCount, MoeLayerReplacesTheMlpWithRouterAndLocalExperts) {
  // kTiny (h 64, f 256, biases, LayerNorm, TE spec) with 8 experts on EP 4: 2 local experts.
  const auto a = parse_megatron_args(words(std::string(kTiny) + "--num-experts 8 --expert-model-parallel-size 4"));
  const auto t = layer_tensors(a, true);
  // Attention as in a dense layer (proj w+b, qkv norm w+b, qkv w+b), then pre_mlp_layernorm (a module of
  // its own in the MoE spec), the router (8 x 64 weight, 8 bias), fc1 weight0, weight1, bias0, bias1,
  // fc2 likewise (TEGroupedMLP registers every weight before the biases).
  const std::vector<std::string> tail = {"pre_mlp_layernorm.weight",
                                         "pre_mlp_layernorm.bias",
                                         "mlp.router.weight",
                                         "mlp.router.bias",
                                         "mlp.experts.linear_fc1.weight0",
                                         "mlp.experts.linear_fc1.weight1",
                                         "mlp.experts.linear_fc1.bias0",
                                         "mlp.experts.linear_fc1.bias1",
                                         "mlp.experts.linear_fc2.weight0",
                                         "mlp.experts.linear_fc2.weight1",
                                         "mlp.experts.linear_fc2.bias0",
                                         "mlp.experts.linear_fc2.bias1"};
  const auto n = names(t);
  ASSERT_EQ(n.size(), 6 + tail.size());
  EXPECT_EQ(std::vector<std::string>(n.begin() + 6, n.end()), tail);
  // Router 8 x 64 = 512, replicated (marked sequence_parallel), not an expert; fc1 64 x 256 = 16384 per
  // expert, fc2 256 x 64 = 16384; biases 256 and 64. Experts: 2 x (16384 + 256 + 16384 + 64) = 66176.
  EXPECT_EQ(t[8].elements, 512);
  EXPECT_TRUE(t[8].replicated);
  EXPECT_FALSE(t[8].expert);
  std::int64_t experts = 0;
  for (const auto& x : t) experts += x.expert ? x.elements : 0;
  EXPECT_EQ(experts, 66176);
  // Attention 4h^2+4h = 16640, norms 2 x 128, router 512 + 8: 66176 + 16640 + 256 + 520 = 83592.
  EXPECT_EQ(total_elements(t), 83592);
  // --moe-ffn-hidden-size 128 halves the experts: 2 x (8192 + 128 + 8192 + 64) = 33152.
  const auto small = parse_megatron_args(words(std::string(kTiny) + "--num-experts 8 --expert-model-parallel-size 4 "
                                                                    "--moe-ffn-hidden-size 128"));
  EXPECT_EQ(total_elements(layer_tensors(small, true)), 83592 - 66176 + 33152);
  // A shared expert of 128 adds a dense TP MLP: 64 x 128 + 128 + 128 x 64 + 64 = 16576.
  const auto shared = parse_megatron_args(words(std::string(kTiny) + "--num-experts 8 --expert-model-parallel-size 4 "
                                                                     "--moe-shared-expert-intermediate-size 128"));
  EXPECT_EQ(total_elements(layer_tensors(shared, true)), 83592 + 16576);
  // A dense layer is unchanged by the MoE arguments.
  EXPECT_EQ(total_elements(layer_tensors(a)), 49984);
}

TEST(ParamCount, Fp8ParamGatherMarksTheTeLinearWeightsOnly) {
  const std::string fp8 = std::string(kTiny) + "--use-distributed-optimizer --fp8-param-gather --fp8-format hybrid ";
  std::vector<std::string> marked;
  for (const auto& t : layer_tensors(parse_megatron_args(words(fp8)))) {
    if (t.fp8) marked.push_back(t.name);
  }
  EXPECT_EQ(marked, (std::vector<std::string>{"self_attention.linear_proj.weight", "self_attention.linear_qkv.weight",
                                              "mlp.linear_fc1.weight", "mlp.linear_fc2.weight"}));
  // MoE: the experts' and shared experts' GroupedLinear / Linear weights; not the router or the biases.
  marked.clear();
  for (const auto& t : layer_tensors(
           parse_megatron_args(words(fp8 + "--num-experts 2 --moe-shared-expert-intermediate-size 128")), true)) {
    if (t.fp8) marked.push_back(t.name);
  }
  EXPECT_EQ(marked,
            (std::vector<std::string>{"self_attention.linear_proj.weight", "self_attention.linear_qkv.weight",
                                      "mlp.experts.linear_fc1.weight0", "mlp.experts.linear_fc1.weight1",
                                      "mlp.experts.linear_fc2.weight0", "mlp.experts.linear_fc2.weight1",
                                      "mlp.shared_experts.linear_fc1.weight", "mlp.shared_experts.linear_fc2.weight"}));
  // Without the flag, and in the embeddings and output layer, nothing.
  for (const auto& t : layer_tensors(parse_megatron_args(words(kTiny)))) EXPECT_FALSE(t.fp8) << t.name;
  const auto a = parse_megatron_args(words(fp8));
  const Layout l = make_layout(a, 0);
  for (const auto& t : chunk_tensors(a, l, 0, 0, 1)) {
    if (t.word_embedding || t.name.find("position") != std::string::npos) {
      EXPECT_FALSE(t.fp8) << t.name;
    }
  }
}

}  // namespace
}  // namespace pipebench
