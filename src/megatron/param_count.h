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
  bool word_embedding = false;  // the (tied) word embedding or its copy on the last stage
};

// Elements of one transformer layer on one TP rank: attention 4h^2+4h (MHA) or h(h+2gk) qkv with GQA,
// MLP 2hf+f+h (3hf+2f+h with swiglu), norms 4h (2h RMSNorm); column-parallel weights and biases / t,
// row-parallel biases and norms replicated.
[[nodiscard]] std::vector<ParamTensor> layer_tensors(const MegatronArgs& a);

// Tensors of pipeline rank r, chunk c (of v), in forward order: word + position embedding on (0, 0),
// the chunk's layers, final norm and the output layer (tied copy or untied weight) on (p-1, v-1).
[[nodiscard]] std::vector<ParamTensor> chunk_tensors(const MegatronArgs& a, const Layout& l, int pp_rank, int chunk,
                                                     int v);

[[nodiscard]] std::int64_t total_elements(const std::vector<ParamTensor>& tensors);

}  // namespace pipebench
