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

}  // namespace
}  // namespace pipebench
