// SPDX-License-Identifier: Apache-2.0
// The Megatron-LM arguments that decide communication, parsed from a launch script's argument list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace pipebench {

enum class MegatronVersion { kMain, kCoreV09 };

struct MegatronArgs {
  // Model.
  int num_layers = 0, hidden = 0, ffn_hidden = 0, heads = 0, query_groups = 0;
  bool gqa = false, swiglu = false, untie_embeddings = false, disable_bias_linear = false, rmsnorm = false;
  std::int64_t seq_length = 0, max_position_embeddings = 0;
  std::int64_t vocab_size = 0;  // from --vocab-size or counted in --vocab-file
  std::string vocab_source;     // how vocab_size was found
  int make_vocab_divisible_by = 128;
  bool rope = false;  // --position-embedding-type rope: no learned position embedding
  // Parallelism.
  int tp = 1, pp = 1, cp = 1;
  int layers_per_virtual_stage = 0;  // --num-layers-per-virtual-pipeline-stage
  int virtual_stages_per_rank = 0;   // --num-virtual-stages-per-pipeline-rank
  // The pipeline split (pipeline_split.h): --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers (0: not given), --account-for-embedding-in-pipeline-split and
  // --account-for-loss-in-pipeline-split.
  int first_stage_layers = 0, last_stage_layers = 0;
  bool account_for_embedding = false, account_for_loss = false;
  bool sequence_parallel = false;
  int world_size = 0;  // --world-size (0: from the GPUs present)
  std::string rank_order = "tp-cp-ep-dp-pp";
  // Batch.
  std::int64_t micro_batch = 0, global_batch = 0;
  int microbatch_group_size = 0;  // --microbatch-group-size-per-virtual-pipeline-stage (0: p)
  // Precision and optimizer.
  DType params_dtype = DType::kFloat;
  bool accumulate_allreduce_grads_in_fp32 = false, grad_reduce_in_bf16 = false;
  bool distributed_optimizer = false, overlap_grad_reduce = false;
  std::int64_t ddp_bucket_size = 0;  // 0: Megatron's default
  int ddp_num_buckets = 0;           // --ddp-num-buckets (0: not given)
  bool ddp_pad_buckets_for_high_nccl_busbw = false;
  bool overlap_param_gather = false;
  // --fp8-param-gather: the distributed optimizer keeps the TE linear weights as FP8 and gathers them at
  // one byte per element (ParamTensor::fp8, plan.h dp_buckets).
  bool fp8_param_gather = false;
  int distributed_optimizer_instances = 1;  // --num-distributed-optimizer-instances
  bool overlap_p2p = true;                  // --no-overlap-p2p-communication turns it off
  // Context parallelism: TE's attention exchange per layer (--cp-comm-type: one entry for every layer,
  // or one per layer), and --hierarchical-context-parallel-sizes (a2a size, p2p size) for a2a+p2p.
  std::vector<std::string> cp_comm_type = {"p2p"};
  std::vector<int> hierarchical_cp_sizes;
  // Activation recompute: granularity "", "full" or "selective"; method "", "uniform" or "block".
  std::string recompute_granularity, recompute_method;
  int recompute_num_layers = 0;
  bool transformer_engine = true;  // --transformer-impl transformer_engine (Megatron's default) or local
  bool qk_layernorm = false;
  // Flags that change messages outside the layers.
  bool create_attention_mask = true;  // --no-create-attention-mask-in-dataloader clears it
  bool cross_entropy_loss_fusion = false, calculate_per_token_loss = false;
  bool tp_comm_overlap = false, defer_embedding_wgrad = false;
  MegatronVersion version = MegatronVersion::kMain;
  // Mixture of Experts (megatron/core/transformer/moe/): 0 experts is a dense model. moe_layer_pattern has
  // one entry per layer (1: MoE, 0: dense), expanded from --moe-layer-freq; empty for a dense model.
  int num_experts = 0, ep = 1, etp = 0;  // etp 0: --expert-tensor-parallel-size not given (= tp)
  int moe_router_topk = 2, moe_ffn_hidden = 0, moe_shared_expert_ffn = 0;
  std::string moe_dispatcher = "allgather";  // --moe-token-dispatcher-type: allgather or alltoall
  std::vector<int> moe_layer_pattern;
  DType moe_probs_dtype = DType::kFloat;  // the router's probabilities: params dtype, or --moe-router-dtype
  bool moe_aux_loss = false;              // --moe-aux-loss-coeff > 0 with the aux_loss balancing type

  std::vector<std::string> ignored;  // accepted Megatron arguments that pipebench does not bind
  std::vector<std::string> unknown;  // kept for plan files written before unknown names were refused
  std::vector<std::string> notes;    // what the plan leaves out or assumed (the plan lists them)
};

// Parses arguments as written in a launch script ("--num-layers 32 --fp16 ..."). A repeated argument
// takes its last value, as argparse does. Throws UsageError naming the argument for missing required
// ones (--num-layers, --hidden-size, --num-attention-heads, --max-position-embeddings, --seq-length,
// --micro-batch-size, --global-batch-size, a vocabulary), non-numeric values and Megatron's argument
// rules (arguments.py validate_args, TransformerConfig.__post_init__).
[[nodiscard]] MegatronArgs parse_megatron_args(const std::vector<std::string>& args);

// The dtype gradients are reduced in (§4): fp32 with --accumulate-allreduce-grads-in-fp32, forced for
// --bf16 unless --grad-reduce-in-bf16; else the parameter dtype.
[[nodiscard]] DType grad_dtype(const MegatronArgs& a);

// The context-parallel exchange of transformer layer `layer` (0-based): p2p, a2a, allgather or a2a+p2p.
[[nodiscard]] const std::string& cp_comm_type_of(const MegatronArgs& a, int layer);

// Whether transformer layer `layer` (0-based) is an MoE layer.
[[nodiscard]] bool is_moe_layer(const MegatronArgs& a, int layer);

// The expert tensor-parallel size: --expert-tensor-parallel-size, else the tensor-parallel size.
[[nodiscard]] int expert_tp(const MegatronArgs& a);

// Whether one of `words` (MegatronArgs::ignored or notes, each "--name [value]") starts with `name`.
[[nodiscard]] bool has_argument(const std::vector<std::string>& words, const std::string& name);

// The padded vocabulary (vocab_size_with_padding): multiple = make_vocab_divisible_by * t.
[[nodiscard]] std::int64_t padded_vocab(const MegatronArgs& a);

}  // namespace pipebench
