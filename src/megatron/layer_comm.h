// SPDX-License-Identifier: Apache-2.0
// The collectives of one transformer layer per microbatch: tensor parallelism (megatron.md §6), the
// query-key-value gather when there are fewer query groups than TP ranks, and context parallelism's
// attention exchange (TransformerEngine's cp_comm_type), each with its calls in forward and backward.
// Full activation recompute runs a layer's forward calls once more in backward.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "megatron/layout.h"
#include "megatron/model_args.h"
#include "megatron/plan_op.h"

namespace pipebench {

// The group a layer message runs on: the TP group, the CP group, or one level of the hierarchical CP
// group of a2a+p2p (the a2a level: hierarchical sizes[0] consecutive CP ranks; the p2p level: the CP
// ranks with the same index in each a2a group).
// MoE layers add the expert groups (layout.h): EP, expert TP, expert TP x EP, and TP x CP (the router's
// aux-loss sum).
enum class LayerGroup { kTp, kCp, kCpA2a, kCpP2p, kEp, kExpertTp, kTpEp, kTpCp };

struct LayerMessage {
  PlanOp op;  // all_reduce, all_gather, reduce_scatter, sendrecv (ring shift), alltoall
  LayerGroup group = LayerGroup::kTp;
  std::int64_t elements = 0;               // the plan's convention: all_gather the gathered result, reduce_scatter the
                                           // input, sendrecv and alltoall what one rank sends
  std::int64_t forward = 0, backward = 0;  // calls per layer and microbatch
  std::string what;
  std::optional<DType> dtype;      // none: the params dtype
  bool routing_dependent = false;  // the size is the balanced expectation; the router decides the real one
};

// TP collectives of one layer (t > 1; none for t = 1). Without SP: 2 all-reduces forward, 2 backward;
// with SP: 2 all-gathers + 2 reduce-scatters forward, 4 all-gathers + 2 reduce-scatters backward;
// query groups < t: one all-gather of the qkv output forward, its reduce-scatter backward.
// An MoE layer without shared experts has no dense MLP: only the attention's half (dense_mlp false).
[[nodiscard]] std::vector<LayerMessage> tp_layer_messages(const MegatronArgs& a, bool dense_mlp = true);

// The token dispatcher's messages of one MoE layer (megatron/core/transformer/moe/token_dispatcher.py) and
// the router's aux-loss sum. T = (s/cp/t) x b tokens per rank (MoE with t > 1 needs SP), k = topk, E
// experts. alltoall: the tokens-per-expert gather over expert TP x EP (E int64 per rank), then per
// direction the dispatch all-to-all of T k tokens x h and of their T k probs and the combine all-to-all
// of T k x h in the EP group, and with expert TP the gather of both after dispatch and the reduce-scatter
// before combine; backward the reverse of each. allgather: the gather over expert TP x EP of the routing
// map (T x E bool), probs (T x E) and tokens (T x h), and the reduce-scatter of the output.
[[nodiscard]] std::vector<LayerMessage> moe_layer_messages(const MegatronArgs& a);

// CP attention exchange of one layer of this cp_comm_type (cp > 1; none for cp = 1).
[[nodiscard]] std::vector<LayerMessage> cp_layer_messages(const MegatronArgs& a, const std::string& cp_comm_type);

// Whether the i-th layer (0-based) of a model chunk runs its forward again in backward: full
// granularity, every layer with method uniform, the first recompute_num_layers with block
// (megatron/core/recompute.py, the chunk being one TransformerBlock).
[[nodiscard]] bool layer_recomputed(const MegatronArgs& a, int index_in_chunk);

// The global ranks of `rank`'s group of this kind.
[[nodiscard]] std::vector<int> layer_group(const Layout& l, const MegatronArgs& a, int rank, LayerGroup g);

// The global layer indices (0-based) of pipeline rank r, chunk c of v (get_transformer_layer_offset):
// evenly c*(L/v) + r*(L/p/v) + i for i < L/p/v; uneven splits as pipeline_split.h says.
[[nodiscard]] std::vector<int> chunk_layers(const MegatronArgs& a, const Layout& l, int r, int c, int v);

}  // namespace pipebench
