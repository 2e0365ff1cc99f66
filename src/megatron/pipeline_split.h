// SPDX-License-Identifier: Apache-2.0
// How Megatron-LM splits the transformer layers over the pipeline ranks and their model chunks: evenly,
// with uneven first and last stages (--decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers),
// or with the embedding and the loss counted as a layer each (--account-for-embedding-in-pipeline-split,
// --account-for-loss-in-pipeline-split). megatron.md §1; Megatron-LM transformer_block.py
// get_num_layers_to_build, transformer_layer.py get_transformer_layer_offset, transformer_config.py
// __post_init__ and arguments.py validate_args (the rules).
#pragma once

#include <string>

#include "megatron/model_args.h"

namespace pipebench {

// The layers of one model chunk: global indices first .. first + count - 1 (count may be 0 where the
// embedding or the loss takes a chunk's only layer slot).
struct LayerRange {
  int first = 0, count = 0;
};

// Whether the arguments split the layers other than evenly (any of the four arguments above).
[[nodiscard]] bool uneven_pipeline_split(const MegatronArgs& a);

// Megatron's rules on the split for p pipeline ranks and v chunks per rank (v 1: not interleaved): ""
// when valid, else one line naming the argument and its value. An even split gets make_layout's two
// rules and messages (layers divisible by p, layers per stage by v; layout.cc).
[[nodiscard]] std::string pipeline_split_problem(const MegatronArgs& a, int p, int v);

// The transformer layers of pipeline rank r's chunk c of v, for a split without problem (the offset of
// get_transformer_layer_offset and the count of get_num_layers_to_build).
[[nodiscard]] LayerRange chunk_layer_range(const MegatronArgs& a, int p, int r, int c, int v);

// The arguments that decide the split, as given: "--num-layers 10, --decoder-first-pipeline-num-layers 2".
[[nodiscard]] std::string pipeline_split_arguments(const MegatronArgs& a);

}  // namespace pipebench
