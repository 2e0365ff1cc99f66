// SPDX-License-Identifier: Apache-2.0
// Per-layer collectives. Sources: Megatron-LM megatron/core/tensor_parallel/layers.py and mappings.py
// (TP), megatron/core/transformer/attention.py (qkv gather), megatron/core/recompute.py (recompute),
// megatron/core/transformer/moe/token_dispatcher.py, moe_layer.py and router.py (MoE);
// TransformerEngine transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py (CP).
#include "megatron/layer_comm.h"

#include <algorithm>

#include "megatron/pipeline_split.h"

namespace pipebench {
namespace {

// The ring of AttnFuncWithCPAndKVP2P over n ranks: forward n-1 exchanges of the KV block (steps
// i < n-1 send to the next rank while attending); backward n steps send to the previous rank: KV at
// step 0, KV and dKV (2 blocks) at steps 1..n-2, dKV at step n-1.
void add_ring(std::vector<LayerMessage>& out, LayerGroup g, int n, std::int64_t kv_block, const std::string& tag) {
  if (n < 2) return;
  out.push_back({"sendrecv", g, kv_block, n - 1, 0, "CP KV ring forward (" + tag + ")", std::nullopt, false});
  out.push_back({"sendrecv", g, kv_block, 0, 2, "CP KV/dKV ring backward (" + tag + ")", std::nullopt, false});
  out.push_back({"sendrecv", g, 2 * kv_block, 0, n - 2, "CP KV/dKV ring backward (" + tag + ")", std::nullopt, false});
}

// AttnFuncWithCPAndQKVOA2A / the a2a level of a2a+p2p (flash_attn_a2a_communicate, one
// all_to_all_single per tensor): forward q, k, v before attention and out after it; backward dout
// before and dq, dk, dv after. Each rank sends its local [b, s/cp, heads, d] tensor.
void add_a2a(std::vector<LayerMessage>& out, LayerGroup g, std::int64_t q_elems, std::int64_t kv_elems,
             const std::string& tag) {
  for (const bool forward : {true, false}) {
    const std::string what =
        std::string("CP attention all-to-all ") + (forward ? "forward" : "backward") + " (" + tag + ")";
    out.push_back({"alltoall", g, q_elems, forward ? 2 : 0, forward ? 0 : 2, what, std::nullopt, false});
    out.push_back({"alltoall", g, kv_elems, forward ? 2 : 0, forward ? 0 : 2, what, std::nullopt, false});
  }
}

}  // namespace

std::vector<LayerMessage> tp_layer_messages(const MegatronArgs& a, bool dense_mlp) {
  std::vector<LayerMessage> out;
  if (a.tp <= 1) return out;
  const std::int64_t tokens = a.seq_length / a.cp * a.micro_batch, act = tokens * a.hidden;
  const std::int64_t blocks = dense_mlp ? 2 : 1;  // attention, and the MLP (or an MoE layer's shared experts)
  if (a.sequence_parallel) {
    // Forward: all-gather the inputs of linear_qkv and linear_fc1, reduce-scatter the outputs of
    // linear_proj and linear_fc2. Backward: the reverse of each (2 AG, 2 RS) plus the re-gather of the
    // two saved sharded inputs for the weight gradients (2 AG).
    out.push_back({"all_gather", LayerGroup::kTp, act, blocks, 2 * blocks, "TP per layer (SP)", std::nullopt, false});
    out.push_back({"reduce_scatter", LayerGroup::kTp, act, blocks, blocks, "TP per layer (SP)", std::nullopt, false});
  } else {
    // Forward: all-reduce after linear_proj and linear_fc2; backward: the dgrad all-reduce of
    // linear_qkv and linear_fc1.
    out.push_back({"all_reduce", LayerGroup::kTp, act, blocks, blocks, "TP per layer", std::nullopt, false});
  }
  const std::int64_t groups = a.gqa && a.query_groups ? a.query_groups : a.heads;
  if (groups < a.tp) {
    // all_gather_last_dim_from_tensor_parallel_region of the qkv output [s/cp, b, h + 2 g d]; its
    // backward is the reduce-scatter along the last dimension.
    const std::int64_t qkv = tokens * (a.hidden + 2 * groups * (a.hidden / a.heads));
    out.push_back({"all_gather", LayerGroup::kTp, qkv, 1, 0, "TP qkv gather (query groups < t)", std::nullopt, false});
    out.push_back(
        {"reduce_scatter", LayerGroup::kTp, qkv, 0, 1, "TP qkv gather (query groups < t)", std::nullopt, false});
  }
  return out;
}

std::vector<LayerMessage> cp_layer_messages(const MegatronArgs& a, const std::string& type) {
  std::vector<LayerMessage> out;
  if (a.cp <= 1) return out;
  // Per TP rank: heads / t query heads and groups / t key/value heads, or 1 when groups < t (attention.py:
  // num_query_groups_per_partition), each of kv_channels = h / heads.
  const std::int64_t groups = a.gqa && a.query_groups ? a.query_groups : a.heads, dim = a.hidden / a.heads;
  const std::int64_t local_tokens = a.micro_batch * (a.seq_length / a.cp), kv_local = groups < a.tp ? 1 : groups / a.tp;
  const std::int64_t q_elems = local_tokens * (a.heads / a.tp) * dim, kv_elems = local_tokens * kv_local * dim;
  if (type == "p2p") {
    add_ring(out, LayerGroup::kCp, a.cp, 2 * kv_elems, "p2p");  // KV block: k and v concatenated
  } else if (type == "a2a") {
    add_a2a(out, LayerGroup::kCp, q_elems, kv_elems, "a2a");
  } else if (type == "allgather") {
    // AttnFuncWithCPAndKVAllGather: forward gathers k and v; backward gathers them again and
    // reduce-scatters dk and dv. Gathered result / reduce-scatter input: cp x the local tensor.
    const std::int64_t gathered = kv_elems * a.cp;
    out.push_back(
        {"all_gather", LayerGroup::kCp, gathered, 2, 0, "CP KV gather forward (allgather)", std::nullopt, false});
    out.push_back(
        {"all_gather", LayerGroup::kCp, gathered, 0, 2, "CP KV gather backward (allgather)", std::nullopt, false});
    out.push_back(
        {"reduce_scatter", LayerGroup::kCp, gathered, 0, 2, "CP KV gather backward (allgather)", std::nullopt, false});
  } else if (type == "a2a+p2p") {
    // a2a inside groups of sizes[0] ranks, then the ring over sizes[1] ranks; after the a2a a rank holds
    // s/cp*sizes[0] tokens of kv_local/sizes[0] heads, so the ring's KV block equals p2p's.
    add_a2a(out, LayerGroup::kCpA2a, q_elems, kv_elems, "a2a+p2p");
    add_ring(out, LayerGroup::kCpP2p, a.hierarchical_cp_sizes.at(1), 2 * kv_elems, "a2a+p2p");
  }
  return out;
}

namespace {

// A message of an MoE layer in one direction: "forward" or "backward" in its name (the replay issues
// it in that step), the balanced-expectation caveat in the name of the routing-dependent ones.
void add_moe(std::vector<LayerMessage>& out, const PlanOp& op, LayerGroup g, std::int64_t elements, bool forward,
             const std::string& what, std::optional<DType> dtype, bool routing_dependent) {
  const std::string name =
      what + (forward ? " forward" : " backward") + (routing_dependent ? " (routing-dependent)" : "");
  out.push_back({op, g, elements, forward ? 1 : 0, forward ? 0 : 1, name, dtype, routing_dependent});
}

// MoEAlltoAllTokenDispatcher: preprocess gathers the tokens-per-expert counts over expert TP x EP (no
// grad); token_dispatch sends the permuted tokens and probs with all_to_all in the EP group (input splits
// from the router: T k rows per rank on balance); dispatch_postprocess gathers both over expert TP
// (gather_from_sequence_parallel_region), combine_preprocess reduce-scatters the output in the probs'
// dtype and token_combine sends it back (all_to_all). Each autograd op's backward is its reverse:
// all-to-all <-> all-to-all, all-gather <-> reduce-scatter.
void add_alltoall_dispatcher(const MegatronArgs& a, std::int64_t tokens, std::vector<LayerMessage>& out) {
  const std::int64_t etp = expert_tp(a), ep = a.ep, k = a.moe_router_topk, h = a.hidden;
  const std::int64_t routed = tokens * k;  // T k rows sent (and, balanced, received) per rank
  const DType probs = a.moe_probs_dtype;
  if (etp * ep > 1)
    add_moe(out, "all_gather", LayerGroup::kTpEp, etp * ep * a.num_experts, true, "MoE tokens-per-expert gather",
            DType::kInt64, false);
  for (const bool fwd : {true, false}) {
    if (ep > 1) {
      add_moe(out, "alltoall", LayerGroup::kEp, routed * h, fwd, "MoE dispatch all-to-all (tokens)", std::nullopt,
              true);
      add_moe(out, "alltoall", LayerGroup::kEp, routed, fwd, "MoE dispatch all-to-all (probs)", probs, true);
    }
    if (etp > 1) {
      add_moe(out, fwd ? "all_gather" : "reduce_scatter", LayerGroup::kExpertTp, etp * routed * h, fwd,
              "MoE expert-TP dispatch gather (tokens)", std::nullopt, true);
      add_moe(out, fwd ? "all_gather" : "reduce_scatter", LayerGroup::kExpertTp, etp * routed, fwd,
              "MoE expert-TP dispatch gather (probs)", probs, true);
      add_moe(out, fwd ? "reduce_scatter" : "all_gather", LayerGroup::kExpertTp, etp * routed * h, fwd,
              "MoE expert-TP combine reduce-scatter", probs, true);
    }
    if (ep > 1)
      add_moe(out, "alltoall", LayerGroup::kEp, routed * h, fwd, "MoE combine all-to-all", std::nullopt, true);
  }
}

// MoEAllGatherTokenDispatcher: token_dispatch gathers the routing map (no grad), the probs and the tokens
// over expert TP x EP; token_combine reduce-scatters the output (in the probs' dtype) over the same group.
// Fixed sizes: every rank receives all T x (expert TP x EP) tokens.
void add_allgather_dispatcher(const MegatronArgs& a, std::int64_t tokens, std::vector<LayerMessage>& out) {
  const std::int64_t n = static_cast<std::int64_t>(expert_tp(a)) * a.ep, e = a.num_experts, h = a.hidden;
  if (n <= 1) return;
  const DType probs = a.moe_probs_dtype;
  add_moe(out, "all_gather", LayerGroup::kTpEp, n * tokens * e, true, "MoE allgather dispatch (routing map)",
          DType::kUint8, false);
  for (const bool fwd : {true, false}) {
    add_moe(out, fwd ? "all_gather" : "reduce_scatter", LayerGroup::kTpEp, n * tokens * e, fwd,
            "MoE allgather dispatch (probs)", probs, false);
    add_moe(out, fwd ? "all_gather" : "reduce_scatter", LayerGroup::kTpEp, n * tokens * h, fwd,
            "MoE allgather dispatch (tokens)", std::nullopt, false);
    add_moe(out, fwd ? "reduce_scatter" : "all_gather", LayerGroup::kTpEp, n * tokens * h, fwd, "MoE allgather combine",
            probs, false);
  }
}

}  // namespace

std::vector<LayerMessage> moe_layer_messages(const MegatronArgs& a) {
  std::vector<LayerMessage> out;
  if (a.num_experts == 0) return out;
  // The MoE layer's input is the sequence-parallel shard [s/cp/t, b, h] (moe_layer.py refuses t > 1
  // without SP).
  const std::int64_t tokens = a.seq_length / a.cp / a.tp * a.micro_batch;
  // router.py _apply_aux_loss: get_tokens_per_expert_and_token_count sums the E counts over TP x CP
  // (reduce_from_tensor_model_parallel_region: all-reduce forward, identity backward).
  if (a.moe_aux_loss && static_cast<std::int64_t>(a.tp) * a.cp > 1)
    add_moe(out, "all_reduce", LayerGroup::kTpCp, a.num_experts, true, "MoE aux-loss tokens-per-expert sum",
            DType::kInt64, false);
  if (a.moe_dispatcher == "alltoall")
    add_alltoall_dispatcher(a, tokens, out);
  else
    add_allgather_dispatcher(a, tokens, out);
  return out;
}

bool layer_recomputed(const MegatronArgs& a, int index_in_chunk) {
  if (a.recompute_granularity != "full") return false;
  return a.recompute_method == "uniform" || index_in_chunk < a.recompute_num_layers;
}

std::vector<int> layer_group(const Layout& l, const MegatronArgs& a, int rank, LayerGroup g) {
  const Layout::Coord& x = l.coords.at(static_cast<std::size_t>(rank));
  std::vector<int> out;
  if (g == LayerGroup::kTp) return Layout::group_of(l.tp_groups, l.tp_index, rank);
  if (g == LayerGroup::kTpCp) {
    for (int c = 0; c < l.cp; ++c)
      for (int t = 0; t < l.tp; ++t) out.push_back(l.rank_of(t, c, x.dp, x.pp));
    std::sort(out.begin(), out.end());
    return out;
  }
  if (g == LayerGroup::kEp) return Layout::group_of(l.ep_groups, l.ep_index, rank);
  if (g == LayerGroup::kExpertTp) return Layout::group_of(l.expert_tp_groups, l.expert_tp_index, rank);
  if (g == LayerGroup::kTpEp) return Layout::group_of(l.tp_ep_groups, l.tp_ep_index, rank);
  const int inner = g == LayerGroup::kCp ? l.cp : a.hierarchical_cp_sizes.at(0);
  for (int c = 0; c < l.cp; ++c) {
    const bool member =
        g == LayerGroup::kCp || (g == LayerGroup::kCpA2a ? c / inner == x.cp / inner : c % inner == x.cp % inner);
    if (member) out.push_back(l.rank_of(x.tp, c, x.dp, x.pp));
  }
  return out;
}

std::vector<int> chunk_layers(const MegatronArgs& a, const Layout& l, int r, int c, int v) {
  const LayerRange range = chunk_layer_range(a, l.pp, r, c, v);
  std::vector<int> out;
  for (int i = 0; i < range.count; ++i) out.push_back(range.first + i);
  return out;
}

}  // namespace pipebench
