// SPDX-License-Identifier: Apache-2.0
// Parameter counts per pipeline stage and model chunk (megatron.md §8), per tensor-parallel rank, and
// the parameter tensors in order, which the DP bucket rules need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "megatron/layout.h"
#include "megatron/model_args.h"

namespace pipebench {

struct ParamTensor {
  std::string name;
  std::int64_t elements = 0;
  bool word_embedding = false;  // the word embedding or the output layer's (tied copy or untied) weight
  // Tied and p > 1: the word embedding on the first stage's chunk 0 and its copy on the last stage's last
  // chunk (LanguageModule.setup_embeddings_and_output_layer sets shared_embedding).
  bool shared_embedding = false;
  bool replicated = false;  // norm or row-parallel bias: marked sequence_parallel (all-reduced over TP with SP)
  bool qk_norm = false;     // q_layernorm / k_layernorm: all-reduced over TP whenever t > 1
  bool expert = false;      // an expert's weight (allreduce = False): its own buffer, reduced over expert DP
  // A TE linear weight kept as FP8 with --fp8-param-gather (fp8_utils.py get_fp8_context(is_init=True) wraps
  // the transformer layers in TE's fp8_model_init, which makes the weights of TE Linear, LayerNormLinear and
  // GroupedLinear FP8 tensors; their layer norms and biases, the router, the embeddings and the output layer
  // stay in the parameter dtype). The DDP groups FP8 params into a uint8 buffer of their own
  // (param_and_grad_buffer.py group_params_for_buffers, _param_uses_quantized_storage).
  bool fp8 = false;
};

// The tensors of one transformer layer on one TP rank in Megatron's registration order (the order of
// model.parameters(), which the DP buckets follow in reverse): attention 4h^2+4h (MHA) or h(h+2gk) qkv
// with GQA, MLP 2hf+f+h (3hf+2f+h with swiglu), norms 4h (2h RMSNorm), q/k norms 2k (4k LayerNorm);
// column-parallel weights and biases / t, row-parallel biases and norms replicated. Order: SelfAttention
// registers linear_proj (in Attention) before linear_qkv; with TE (the default) the two norms live inside
// linear_qkv and linear_fc1 (TE LayerNormLinear registers layer_norm_weight/bias before weight/bias); the
// local spec has input_layernorm and pre_mlp_layernorm as modules of their own.
//
// An MoE layer (moe true) keeps the attention and replaces the MLP (moe_layer.py, experts.py): a
// pre_mlp_layernorm module of its own (the MoE spec does not fuse it), the router (E x h, + E bias;
// replicated, marked sequence_parallel), the E/ep local experts as TEGroupedMLP (fc1: h x f_moe, x2 with
// swiglu, / etp for every local expert, then their biases; fc2: f_moe/etp x h each, then biases h), and
// the shared experts as a dense TP MLP of --moe-shared-expert-intermediate-size.
[[nodiscard]] std::vector<ParamTensor> layer_tensors(const MegatronArgs& a, bool moe = false);

// Tensors of pipeline rank r, chunk c (of v), in forward order: word + position embedding on (0, 0),
// the chunk's layers, final norm and the output layer (tied copy or untied weight) on (p-1, v-1).
[[nodiscard]] std::vector<ParamTensor> chunk_tensors(const MegatronArgs& a, const Layout& l, int pp_rank, int chunk,
                                                     int v);

[[nodiscard]] std::int64_t total_elements(const std::vector<ParamTensor>& tensors);

}  // namespace pipebench
