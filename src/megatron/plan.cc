// SPDX-License-Identifier: Apache-2.0
// Message generation. Each count cites the section of the shared Megatron reference it implements.
#include "megatron/plan.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>

#include "core/checked_math.h"
#include "core/error.h"
#include "megatron/layer_comm.h"
#include "megatron/p2p_calls.h"
#include "megatron/param_count.h"
#include "megatron/pipeline_split.h"
#include "schedule/schedule_file.h"
#include "schedule/schedule_registry.h"

namespace pipebench {

namespace {
// The labels of the step's scalar all-reduces (add_scalars writes them; is_step_check reads them back,
// also from plans written before).
constexpr const char* kFoundInf = "found_inf (max)";
constexpr const char* kGradNorm = "grad norm (sum)";
constexpr const char* kUpdateSuccessful = "update_successful (min)";
constexpr const char* kGradNormStat = "grad-norm stat (max)";
constexpr const char* kRerunFlag = "rerun flag (sum)";
}  // namespace

bool is_step_check(const PlanMessage& msg) {
  if (msg.phase != Phase::kAfter || !msg.op.is("all_reduce")) return false;
  for (const char* label : {kFoundInf, kGradNorm, kUpdateSuccessful, kGradNormStat, kRerunFlag}) {
    if (msg.what == label) return true;
  }
  return false;
}

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kWarmup:
      return "warm-up";
    case Phase::kSteady:
      return "steady";
    case Phase::kCooldown:
      return "cool-down";
    case Phase::kPipeline:
      return "pipeline";
    case Phase::kAfter:
      return "after";
  }
  return "?";
}

std::int64_t warmup_microbatches(const MegatronArgs& a, const Layout& l, int v, int r) {
  const std::int64_t p = l.pp, m = l.microbatches;
  if (v <= 1) return std::min<std::int64_t>(p - r - 1, m);  // §3a
  const std::int64_t total = m * v;
  if (a.version == MegatronVersion::kCoreV09) {
    if (m == p) return total;  // v2.6 .. core_v0.9: all microbatches in warm-up when m == p
    return std::min<std::int64_t>(2 * (p - r - 1) + (v - 1) * p, total);
  }
  return std::min<std::int64_t>(2 * (p - r - 1) + (v - 1) * l.microbatch_group, total);  // §3b, main
}

ScheduleShape megatron_shape(const MegatronArgs& a, const Layout& l, const ScheduleId& id) {
  const std::int64_t m = l.microbatches, p = l.pp;
  const int v = id.v;
  ScheduleShape s;
  s.p = l.pp;
  s.v = v;
  s.m = m;
  s.overlap_p2p = a.overlap_p2p;
  s.placement = schedule_generator(id).placement();
  for (int r = 0; r < l.pp; ++r) s.warmup.push_back(warmup_microbatches(a, l, v, r));
  if (v <= 1) {
    s.table = one_chunk_table(m);
    return s;
  }
  s.table.reserve(static_cast<std::size_t>(m * v));
  if (a.version == MegatronVersion::kCoreV09) {
    for (std::int64_t k = 0; k < m * v; ++k)
      s.table.emplace_back((k / (p * v)) * p + (k % p), static_cast<int>((k % (p * v)) / p));
    return s;
  }
  const std::int64_t n = l.microbatch_group;
  for (std::int64_t g = 0; g < m; g += n) {
    const std::int64_t end = g + n >= m ? m : g + n;  // the last group takes the remainder
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < end; ++mb) s.table.emplace_back(mb, c);
    if (end == m) break;
  }
  return s;
}

std::int64_t dp_bucket_size(const MegatronArgs& a, const Layout& l, int r, int c, int v) {
  // Bucketing only applies with --overlap-grad-reduce, to chunk 0 of pipeline rank 0 (§4;
  // training.py resolve_ddp_bucket_size, distributed_data_parallel.py).
  if (!a.overlap_grad_reduce || c != 0 || r != 0) return 0;
  if (a.ddp_num_buckets > 0) {
    std::int64_t params = 0;  // num_parameters: every chunk of this rank
    for (int k = 0; k < v; ++k) params += total_elements(chunk_tensors(a, l, r, k, v));
    return std::max<std::int64_t>(1, params / a.ddp_num_buckets);
  }
  if (a.ddp_bucket_size > 0) return a.ddp_bucket_size;
  return std::max<std::int64_t>(40000000, 1000000LL * l.dp * l.cp);
}

std::vector<std::int64_t> dp_buckets(const MegatronArgs& a, const Layout& l, int r, int c, int v, bool expert,
                                     bool fp8) {
  auto tensors = chunk_tensors(a, l, r, c, v);
  tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                               [&](const ParamTensor& t) { return t.expert != expert || t.fp8 != fp8; }),
                tensors.end());
  if (tensors.empty()) return {};
  const std::int64_t bucket_size = dp_bucket_size(a, l, r, c, v);  // 0: one bucket
  const bool distopt = a.distributed_optimizer;
  // The distributed optimizer's layout (distrib_optimizer.py _compute_per_buffer_param_layout,
  // optimizer/param_layout.py): param starts aligned to 64 elements, bucket ends padded to
  // lcm(shard group, 128) (and 2^16 with --ddp-pad-buckets-for-high-nccl-busbw), the shared word
  // embedding in a bucket of its own. Without it: no padding, no split (_compute_default_per_buffer_...).
  const std::int64_t shard = (expert ? static_cast<std::int64_t>(l.edp) : static_cast<std::int64_t>(l.dp) * l.cp) /
                             a.distributed_optimizer_instances;
  std::int64_t divisor = std::lcm<std::int64_t>(shard, 128);
  if (a.ddp_pad_buckets_for_high_nccl_busbw) divisor = std::lcm<std::int64_t>(divisor, 1 << 16);
  std::vector<std::int64_t> out;
  std::int64_t start = 0, bucket_start = 0, end = 0;
  bool open = false;
  auto close = [&](std::int64_t at) {
    const std::int64_t padded = distopt ? (at + divisor - 1) / divisor * divisor : at;
    out.push_back(padded - bucket_start);
    bucket_start = padded;
    open = false;
    return padded;
  };
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {  // backprop order
    const bool own_bucket = distopt && it->shared_embedding;
    start = distopt ? (start + 63) / 64 * 64 : start;
    if (own_bucket && open) start = close(start);
    end = start + it->elements;
    open = true;
    start = (bucket_size > 0 && end - bucket_start >= bucket_size) || own_bucket ? close(end) : end;
  }
  if (open) close(end);
  return out;
}

namespace {

const char* const kSizes = "Megatron arguments: a message size (sequence x micro batch x hidden, or the vocabulary)";

std::int64_t bytes_of(std::int64_t elements, DType t) {
  return checked_mul(elements, static_cast<std::int64_t>(dtype_size(t)), kSizes);
}

// The phase of the call that receives forward (or backward) virtual microbatch k (§3). 1F1B receives
// in the step that uses the tensor. Interleaved posts each receive one step early (schedules.py
// forward_backward_pipelining_with_interleaving): the input of forward k comes with forward k-1's send
// (k = 0: the recv_forward before the warm-up), so forwards 0..W are received in warm-up; the grad of
// backward 0 is pre-posted at the last warm-up step, that of backward k >= 1 comes with backward k-1's
// send, so backwards 1..R are received in steady and the rest in cool-down; with all microbatches in
// warm-up (W = T) the cool-down's recv_backward takes them all.
Phase recv_phase(std::int64_t k, std::int64_t w, std::int64_t total, bool forward, bool interleaved) {
  const std::int64_t steady = total - w;
  if (!interleaved)
    return forward ? (k < w ? Phase::kWarmup : Phase::kSteady) : (k < steady ? Phase::kSteady : Phase::kCooldown);
  if (forward) return k <= w ? Phase::kWarmup : Phase::kSteady;
  if (steady == 0) return Phase::kCooldown;
  return k == 0 ? Phase::kWarmup : k <= steady ? Phase::kSteady : Phase::kCooldown;
}

class Builder {
 public:
  Builder(const MegatronArgs& a, const Layout& l, const ScheduleId& id) : a_(a), l_(l), id_(id) {}

  [[nodiscard]] const ScheduleShape& shape() const { return shape_; }

  std::vector<PlanMessage> rank_messages(int rank) {
    out_.clear();
    const int r = l_.coords[static_cast<std::size_t>(rank)].pp;  // pipeline rank
    add_pipeline_p2p(rank, r);
    add_layer_collectives(rank, r);
    add_stage_collectives(rank, r);
    add_gradient_reduction(rank, r);
    add_scalars(rank, r);
    return out_;
  }

 private:
  // Pipeline P2P (§2, §3): [s/cp (/t with SP), b, h] in the params dtype, peers (r +- 1) mod p, in the
  // calls Megatron issues them in (p2p_calls.h). Messages of one call share a batch id: the same
  // combination of (op, direction, what, phase) under the same call name is one batch, counted per call.
  // The same for every rank of a pipeline stage: computed once per stage, peers filled in per rank.
  struct P2PBatchMessage {
    bool send, to_next, grad;
    Phase phase;
    int batch;
    std::int64_t count;
    std::string_view call;
  };

  const std::vector<P2PBatchMessage>& stage_p2p(int r) {
    auto cached = p2p_.find(r);
    if (cached != p2p_.end()) return cached->second;
    const std::int64_t total = l_.microbatches * v_;
    const std::int64_t w = shape_.warmup[static_cast<std::size_t>(r)];
    auto phase_of = [&](const CallOp& op) {
      if (!op.send) return recv_phase(op.k, w, total, !op.grad, interleaves_);
      if (!op.grad) return op.k < w ? Phase::kWarmup : Phase::kSteady;
      return op.k < total - w ? Phase::kSteady : Phase::kCooldown;
    };
    // A call as its name and its ops, each (send, grad, phase) in 6 bits; a message as (batch, op index).
    std::map<std::pair<std::string_view, std::uint32_t>, int> batch_of;
    std::map<std::pair<int, int>, P2PBatchMessage> msgs;
    for_each_p2p_call(shape_, id_, r, [&](const Call& c) {
      std::uint32_t code = 0;
      for (int i = 0; i < c.nops; ++i) {
        const CallOp& op = c.ops[i];
        code = code << 6 | 32u | (op.send ? 16u : 0u) | (op.grad ? 8u : 0u) | static_cast<std::uint32_t>(phase_of(op));
      }
      const int batch =
          batch_of.emplace(std::make_pair(std::string_view(c.name), code), static_cast<int>(batch_of.size()))
              .first->second;
      for (int i = 0; i < c.nops; ++i) {
        const CallOp& op = c.ops[i];
        auto [it, added] = msgs.try_emplace({batch, i}, P2PBatchMessage{op.send, op.to_next(), op.grad, phase_of(op),
                                                                        batch, 0, std::string_view(c.name)});
        ++it->second.count;
      }
    });
    std::vector<P2PBatchMessage> out;
    for (const auto& [key, m] : msgs) out.push_back(m);
    return p2p_.emplace(r, std::move(out)).first->second;
  }

  void add_pipeline_p2p(int rank, int r) {
    const int p = l_.pp;
    if (p <= 1) return;
    const auto& pg = Layout::group_of(l_.pp_groups, l_.pp_index, rank);
    const std::int64_t s = a_.seq_length, b = a_.micro_batch, h = a_.hidden;
    const bool sp = a_.sequence_parallel && a_.tp > 1;
    const std::int64_t elems = checked_product({s / a_.cp / (sp ? a_.tp : 1), b, h}, kSizes);
    const int next = pg[static_cast<std::size_t>((r + 1) % p)], prev = pg[static_cast<std::size_t>((r - 1 + p) % p)];
    // Listed in (op, peer, what, phase, batch) order.
    std::map<std::tuple<std::string, int, std::string, Phase, int>, const P2PBatchMessage*> sorted;
    for (const auto& m : stage_p2p(r)) {
      sorted[{m.send ? "send" : "recv", m.to_next ? next : prev, m.grad ? "activation grad" : "activation", m.phase,
              m.batch}] = &m;
    }
    for (const auto& [key, m] : sorted) {
      const auto& [op, peer, what, phase, batch] = key;
      add(rank, op == "send" ? PlanOp::send() : PlanOp::recv(), {std::min(rank, peer), std::max(rank, peer)}, elems,
          a_.params_dtype, m->count, phase, what);
      out_.back().peer = peer;
      out_.back().batch = batch;
      out_.back().call = std::string(m->call);
    }
  }

  // The collectives of this rank's transformer layers (layer_comm.h): TP and the CP attention exchange
  // of each layer's cp_comm_type, forward and backward, and the forward ones again for each layer that
  // full recompute re-runs in backward.
  // MoE layers add their dispatcher's messages and, without shared experts, keep only the attention's TP
  // collectives.
  void add_layer_collectives(int rank, int r) {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> by_type;  // cp type -> layers, recomputed
    std::pair<std::int64_t, std::int64_t> dense, moe;                      // layers, recomputed
    for (int c = 0; c < v_; ++c) {
      const auto indices = chunk_layers(a_, l_, r, c, v_);
      for (std::size_t i = 0; i < indices.size(); ++i) {
        const std::int64_t again = layer_recomputed(a_, static_cast<int>(i)) ? 1 : 0;
        auto& n = by_type[cp_comm_type_of(a_, indices[i])];
        ++n.first;
        n.second += again;
        auto& kind = is_moe_layer(a_, indices[i]) ? moe : dense;
        ++kind.first;
        kind.second += again;
      }
    }
    const bool shared_experts = a_.moe_shared_expert_ffn > 0;
    if (shared_experts) {
      add_layer_messages(rank, tp_layer_messages(a_), dense.first + moe.first, dense.second + moe.second);
    } else {
      add_layer_messages(rank, tp_layer_messages(a_), dense.first, dense.second);
      add_layer_messages(rank, tp_layer_messages(a_, false), moe.first, moe.second);
    }
    for (const auto& [type, n] : by_type) add_layer_messages(rank, cp_layer_messages(a_, type), n.first, n.second);
    add_layer_messages(rank, moe_layer_messages(a_), moe.first, moe.second);
  }

  void add_layer_messages(int rank, const std::vector<LayerMessage>& msgs, std::int64_t layers,
                          std::int64_t recomputed) {
    const std::int64_t m = l_.microbatches;
    if (layers == 0) return;
    for (const auto& lm : msgs) {
      const auto group = layer_group(l_, a_, rank, lm.group);
      const DType t = lm.dtype.value_or(a_.params_dtype);
      add_inside(rank, lm.op, group, lm.elements, t, {lm.forward * layers * m, lm.backward * layers * m, 0}, lm.what,
                 lm.routing_dependent);
      add_inside(rank, lm.op, group, lm.elements, t, {0, 0, lm.forward * recomputed * m}, lm.what + ", recompute",
                 lm.routing_dependent);
    }
  }

  // The first and last stage's TP collectives, the cross-entropy all-reduces and the data broadcasts.
  void add_stage_collectives(int rank, int r) {
    const int p = l_.pp;
    const auto& tpg = Layout::group_of(l_.tp_groups, l_.tp_index, rank);
    const std::int64_t m = l_.microbatches, s = a_.seq_length, b = a_.micro_batch, h = a_.hidden;
    const DType act = a_.params_dtype;
    const bool sp = a_.sequence_parallel && a_.tp > 1;
    const std::int64_t a_elems = checked_product({s / a_.cp, b, h}, kSizes);
    if (a_.tp > 1) {
      if (r == 0) {
        // VocabParallelEmbedding: all-reduce, or with SP reduce-scatter. A learned absolute position
        // embedding turns the reduce-scatter off (language_model_embedding.py reduce_scatter_embeddings):
        // all-reduce, then scatter_to_sequence_parallel_region (a local split). With SP the backward of
        // either is an all-gather of the grad.
        const bool rs = sp && a_.rope;
        add_inside(rank, rs ? "reduce_scatter" : "all_reduce", tpg, a_elems, act, forward_calls(m),
                   "TP embedding forward");
        if (sp) add_inside(rank, "all_gather", tpg, a_elems, act, backward_calls(m), "TP embedding backward (SP)");
      }
      if (r == p - 1) {
        if (sp) add_inside(rank, "all_gather", tpg, a_elems, act, forward_calls(m), "TP output layer forward");
        add_inside(rank, sp ? "reduce_scatter" : "all_reduce", tpg, a_elems, act, backward_calls(m),
                   "TP output layer dgrad");
        // With SP the output layer (ColumnParallelLinear) saves its sharded input and gathers it again
        // for the weight gradient (layers.py LinearWithGradAccumulationAndAsyncCommunication.backward);
        // --defer-embedding-wgrad-compute moves these gathers to the drain (utils.py
        // drain_embedding_wgrad_compute).
        if (sp)
          add_inside(rank, "all_gather", tpg, a_elems, act, backward_calls(m), "TP output layer wgrad re-gather (SP)",
                     false, a_.defer_embedding_wgrad ? Phase::kCooldown : Phase::kPipeline);
      }
    }
    // Vocab-parallel cross entropy on the last stage, even when t = 1 (§6): 3 all-reduces of s*b fp32;
    // fused (--cross-entropy-loss-fusion, fusions/fused_cross_entropy.py): the max, then predicted
    // logits and sum of exp concatenated (2 s b).
    if (r == p - 1) {
      const std::int64_t tokens = checked_mul(s / a_.cp, b, kSizes);
      if (a_.cross_entropy_loss_fusion) {
        add_inside(rank, "all_reduce", tpg, tokens, DType::kFloat, forward_calls(m), "cross-entropy (max)");
        add_inside(rank, "all_reduce", tpg, 2 * tokens, DType::kFloat, forward_calls(m), "cross-entropy (sum, fused)");
      } else {
        add_inside(rank, "all_reduce", tpg, tokens, DType::kFloat, forward_calls(3 * m),
                   "cross-entropy (max, sum, sum)");
      }
    }
    // Data broadcast over TP on the first and last stage, per microbatch (§6 get_batch_on_this_tp_rank);
    // the mask only when the dataloader creates it.
    if (r == 0) {
      add_inside(rank, "broadcast", tpg, checked_mul(b, s, kSizes), DType::kInt64, forward_calls(2 * m),
                 "tokens, position ids");
    }
    if (r == p - 1) {
      add_inside(rank, "broadcast", tpg, checked_mul(b, s, kSizes), DType::kInt64, forward_calls(m), "labels");
      add_inside(rank, "broadcast", tpg, checked_mul(b, s, kSizes), DType::kFloat, forward_calls(m), "loss mask");
    }
    if ((r == 0 || r == p - 1) && a_.create_attention_mask)
      add_inside(rank, "broadcast", tpg, checked_product({b, s, s}, kSizes), DType::kUint8, forward_calls(m),
                 "attention mask");
  }

  // After the pipeline: DP gradients, word-embedding grad, sequence-parallel params.
  void add_gradient_reduction(int rank, int r) {
    const int p = l_.pp;
    const DType grad = grad_dtype(a_);
    for (int c = 0; c < v_; ++c) add_dp_chunk(rank, r, c, false);
    if (l_.moe) {
      for (int c = 0; c < v_; ++c) add_dp_chunk(rank, r, c, true);
    }
    // Word-embedding grad all-reduce over {first, last} pipeline rank, tied weights, p > 1 (§5).
    if (p > 1 && !a_.untie_embeddings && (r == 0 || r == p - 1)) {
      const auto& eg = Layout::group_of(l_.embedding_groups, l_.embedding_index, rank);
      add(rank, "all_reduce", eg, checked_mul(padded_vocab(a_), a_.hidden, kSizes) / a_.tp, grad, 1, Phase::kAfter,
          "word-embedding grad");
    }
    // Replicated params, one coalesced TP sum all-reduce (finalize_model_grads.py
    // _allreduce_non_tensor_model_parallel_grads, t > 1): with SP those marked sequence_parallel (norms,
    // row-parallel biases), and with --qk-layernorm the q/k norms.
    if (a_.tp > 1) {
      const bool sp = a_.sequence_parallel;
      auto cached = replicated_.find(r);
      if (cached == replicated_.end()) {
        std::int64_t n = 0;
        for (int c = 0; c < v_; ++c) {
          for (const auto& t : chunk_tensors(a_, l_, r, c, v_)) {
            if ((sp && t.replicated) || t.qk_norm) n = checked_add(n, t.elements, kSizes);
          }
        }
        cached = replicated_.emplace(r, n).first;
      }
      const std::int64_t replicated = cached->second;
      if (replicated > 0)
        add(rank, "all_reduce", Layout::group_of(l_.tp_groups, l_.tp_index, rank), replicated, grad, 1, Phase::kAfter,
            sp ? "sequence-parallel params" : "qk-layernorm params");
    }
  }

  // DP gradient reduction of one model chunk, bucket by bucket (§4): all-reduce over DP x CP; with the
  // distributed optimizer reduce-scatter in the instance's shard group, all-reduce of the shard across
  // instances (--num-distributed-optimizer-instances, param_and_grad_buffer.py start_grad_sync), and the
  // param all-gather in the shard group.
  // Expert parameters (expert true): the same over the expert DP group (intra_expt_dp_group, split by the
  // optimizer instances like the dense one), after the dense buckets (bucket_groups +
  // expert_parallel_bucket_groups in distributed_data_parallel.py).
  void add_dp_chunk(int rank, int r, int c, bool expert) {
    const auto& dpg = expert ? Layout::group_of(l_.expert_dp_groups, l_.expert_dp_index, rank)
                             : Layout::group_of(l_.dp_cp_groups, l_.dp_cp_index, rank);
    const DType grad = grad_dtype(a_);
    const int k = a_.distributed_optimizer_instances;
    const std::size_t shard = dpg.size() / static_cast<std::size_t>(k);
    const auto pos = static_cast<std::size_t>(std::find(dpg.begin(), dpg.end(), rank) - dpg.begin());
    std::vector<int> intra(dpg.begin() + static_cast<std::ptrdiff_t>(pos / shard * shard),
                           dpg.begin() + static_cast<std::ptrdiff_t>(pos / shard * shard + shard));
    std::vector<int> inter;
    for (std::size_t i = pos % shard; i < dpg.size(); i += shard) inter.push_back(dpg[i]);
    const std::string chunk = ", chunk " + std::to_string(c), kind = expert ? "expert " : "";
    const std::string gather = a_.overlap_param_gather ? " (overlap-param-gather: next iteration's forward)" : "";
    // --fp8-param-gather: the FP8 buffer's buckets first, then the parameter-dtype buffer's, which
    // partition_buckets (param_and_grad_buffer.py) puts into the last FP8 bucket group, so they are issued
    // with it; the FP8 buffer's params are gathered as uint8, one byte per element (its param_data dtype).
    for (const bool fp8 : {true, false}) {
      if (fp8 && !a_.fp8_param_gather) continue;
      // The same on every rank of a pipeline stage: computed once (computed-but-empty is marked by the flag).
      auto& [done, buckets] = buckets_[{r, c, expert, fp8}];
      if (!done) buckets = dp_buckets(a_, l_, r, c, v_, expert, fp8);
      done = true;
      const DType param_dtype = fp8 ? DType::kUint8 : a_.params_dtype;
      const std::string params_what = kind + "params" + (fp8 ? " (FP8)" : "") + chunk + gather;
      for (std::int64_t bucket : buckets) {
        if (!a_.distributed_optimizer) {
          add(rank, "all_reduce", dpg, bucket, grad, 1, Phase::kAfter, kind + "dp grads" + chunk);
          continue;
        }
        add(rank, "reduce_scatter", intra, bucket, grad, 1, Phase::kAfter, kind + "dp grads" + chunk);
        if (k > 1)
          add(rank, "all_reduce", inter, bucket / static_cast<std::int64_t>(shard), grad, 1, Phase::kAfter,
              kind + "dp grads across optimizer instances" + chunk);
        add(rank, "all_gather", intra, bucket, param_dtype, 1, Phase::kAfter, params_what);
      }
    }
  }

  void add_scalars(int rank, int r) {
    const int p = l_.pp;
    const auto& dpg = Layout::group_of(l_.dp_cp_groups, l_.dp_cp_index, rank);
    const auto& mpg = Layout::group_of(l_.model_parallel_groups, l_.mp_index, rank);
    const std::int64_t m = l_.microbatches;
    // Scalars (§7).
    std::vector<int> world(static_cast<std::size_t>(l_.world));
    std::iota(world.begin(), world.end(), 0);
    const std::vector<int>& stats_group = a_.distributed_optimizer ? world : mpg;
    if (a_.params_dtype == DType::kHalf)
      add(rank, "all_reduce", stats_group, 1, DType::kFloat, 1, Phase::kAfter, kFoundInf);
    add(rank, "all_reduce", stats_group, 1, DType::kFloat, 1, Phase::kAfter, kGradNorm);
    add(rank, "all_reduce", mpg, 1, DType::kInt32, 1, Phase::kAfter, kUpdateSuccessful);
    add(rank, "all_reduce", mpg, 1, DType::kFloat, 1, Phase::kAfter, kGradNormStat);
    add(rank, "all_reduce", world, 1, DType::kInt32, 1, Phase::kAfter, kRerunFlag);
    if (r == p - 1) {
      const bool per_mb = a_.version == MegatronVersion::kCoreV09;
      if (per_mb)
        add_inside(rank, "all_reduce", dpg, 2, DType::kFloat, forward_calls(m), "loss");
      else
        add(rank, "all_reduce", dpg, 2, DType::kFloat, 1, Phase::kAfter, "loss");
    }
    // --calculate-per-token-loss (finalize_model_grads.py): the token count broadcast from the last
    // pipeline stage, then summed over DP x CP.
    if (a_.calculate_per_token_loss) {
      const auto& pg = Layout::group_of(l_.pp_groups, l_.pp_index, rank);
      add(rank, "broadcast", pg, 1, DType::kInt32, 1, Phase::kAfter, "num tokens (per-token loss)");
      add(rank, "all_reduce", dpg, 1, DType::kInt32, 1, Phase::kAfter, "num tokens (per-token loss)");
    }
  }

  // A collective inside the schedule: its calls per iteration as the passes issue them.
  void add_inside(int rank, const PlanOp& op, const std::vector<int>& group, std::int64_t elements, DType t,
                  PassCalls calls, const std::string& what, bool routing_dependent = false,
                  Phase phase = Phase::kPipeline) {
    const std::size_t before = out_.size();
    add(rank, op, group, elements, t, calls.total(), phase, what, routing_dependent);
    if (out_.size() > before) out_.back().passes = calls;
  }
  static PassCalls forward_calls(std::int64_t n) { return {n, 0, 0}; }
  static PassCalls backward_calls(std::int64_t n) { return {0, n, 0}; }

  void add(int rank, const PlanOp& op, const std::vector<int>& group, std::int64_t elements, DType t,
           std::int64_t count, Phase phase, const std::string& what, bool routing_dependent = false) {
    if (count <= 0) return;
    PlanMessage msg;
    msg.rank = rank;
    msg.op = op;
    msg.group = group;
    msg.elements = elements;
    msg.dtype = t;
    msg.bytes = bytes_of(elements, t);
    (void)checked_mul(msg.bytes, count, kSizes);  // the bytes per iteration must fit too (summaries add them)
    msg.count = count;
    msg.phase = phase;
    msg.what = what;
    msg.routing_dependent = routing_dependent;
    out_.push_back(msg);
  }

  const MegatronArgs& a_;
  const Layout& l_;
  ScheduleId id_;
  int v_ = id_.v;
  bool interleaves_ = schedule_generator(id_).interleaves();
  ScheduleShape shape_ = megatron_shape(a_, l_, id_);
  std::vector<PlanMessage> out_;
  // (pipeline rank, chunk, expert, fp8) -> (computed, buckets)
  std::map<std::tuple<int, int, bool, bool>, std::pair<bool, std::vector<std::int64_t>>> buckets_;
  std::map<int, std::int64_t> replicated_;           // pipeline rank -> replicated elements
  std::map<int, std::vector<P2PBatchMessage>> p2p_;  // pipeline rank -> its P2P batches
};

Schedule make_schedule(const MegatronArgs& a, const Layout& l, const ScheduleId& id, const std::vector<int>& ranks) {
  Schedule s;
  s.id = id;
  const int v = id.v;
  Builder b(a, l, id);
  s.warmup = b.shape().warmup;
  for (int r = 0; r < l.pp; ++r) {
    for (int c = 0; c < v; ++c) {
      s.params.push_back(
          {r, c, total_elements(chunk_tensors(a, l, r, c, v)), chunk_layer_range(a, l.pp, r, c, v).count});
    }
  }
  // Bubble fractions of Narayanan et al., SC21, Sec. 2.2: (p-1)/m and (p-1)/(v m).
  s.bubble_ideal = static_cast<double>(l.pp - 1) / (static_cast<double>(v) * static_cast<double>(l.microbatches));
  for (int rank : ranks) {
    std::vector<PlanMessage> msgs = b.rank_messages(rank);
    s.messages.insert(s.messages.end(), std::make_move_iterator(msgs.begin()), std::make_move_iterator(msgs.end()));
  }
  return s;
}

// --fp8-param-gather: what the plan lists, and a bf16 exception it does not follow.
void add_fp8_notes(const MegatronArgs& a, std::vector<std::string>& notes) {
  notes.push_back(
      "--fp8-param-gather: the TE linear weights sit in an FP8 buffer of their own, bucketed apart and gathered "
      "as uint8 (1 byte per element): the \"params (FP8)\" all-gathers; norms, biases, router and embeddings stay " +
      std::string(dtype_name(a.params_dtype)));
  // The recipes that scale per block (mxfp8, blockwise) or are user-defined keep scaling factors beside
  // the FP8 data; the plan lists the data's bytes only (delayed and tensorwise: one scale per tensor).
  for (const std::string& w : a.ignored) {
    if (w.rfind("--fp8-recipe", 0) != 0) continue;
    const std::string recipe =
        w.substr(w.find_first_of(" =") == std::string::npos ? w.size() : w.find_first_of(" =") + 1);
    if (recipe != "delayed" && recipe != "tensorwise")
      notes.push_back("--fp8-recipe " + recipe +
                      ": the FP8 all-gathers are listed at 1 byte per element, without the recipe's scaling factors");
  }
  if (has_argument(a.ignored, "--first-last-layers-bf16"))
    notes.push_back(
        "--first-last-layers-bf16 is not modelled with --fp8-param-gather: Megatron keeps those layers' weights out "
        "of FP8; the plan gathers every layer's TE linear weights in FP8");
}

}  // namespace

Plan make_plan(const MegatronArgs& args, int gpus_present) {
  Plan plan;
  plan.args = args;
  plan.layout = make_layout(args, gpus_present);
  plan.padded_vocab_size = padded_vocab(args);
  plan.grad_dtype = grad_dtype(args);
  plan.notes = args.notes;  // from the arguments: the launcher's world, what is not modelled
  const Layout& l = plan.layout;
  if (args.sequence_parallel && args.tp == 1)
    plan.notes.push_back("--sequence-parallel with t = 1 is turned off by Megatron");
  if (args.tp_comm_overlap)
    plan.notes.push_back(
        "--tp-comm-overlap: TE runs the linear layers' TP all-gathers and reduce-scatters as userbuffers ring "
        "exchanges overlapped with the GEMMs; they are listed at their NCCL sizes");
  if (args.overlap_grad_reduce)
    plan.notes.push_back(
        "--overlap-grad-reduce: each DP bucket is issued during the last microbatch's backward as soon as its "
        "grads are ready (listed after the pipeline, in the order they are issued)");
  if (uneven_pipeline_split(args))
    plan.notes.push_back("uneven pipeline split (" + pipeline_split_arguments(args) +
                         "): each schedule lists the transformer layers per pipeline rank/chunk");
  if (args.fp8_param_gather) add_fp8_notes(args, plan.notes);
  if (args.cp > 1)
    plan.notes.push_back("context parallelism: the attention exchange follows TransformerEngine's cp_comm_type (" +
                         args.cp_comm_type.front() + (args.cp_comm_type.size() > 1 ? ", per layer" : "") + ")");
  if (l.moe)
    plan.notes.push_back(
        "MoE (" + std::to_string(args.num_experts) + " experts, top-" + std::to_string(args.moe_router_topk) + ", " +
        args.moe_dispatcher + " dispatcher, ep " + std::to_string(l.ep) + ", expert tp " + std::to_string(l.etp) +
        ", expert dp " + std::to_string(l.edp) +
        "): messages marked routing-dependent are sized at the balanced expectation (tokens x topk spread evenly "
        "over the experts); the router decides the real sizes per microbatch");
  if (l.world <= kListEveryRankUpTo) {
    for (int r = 0; r < l.world; ++r) plan.listed_ranks.push_back(r);
  } else {
    plan.listed_ranks = l.pp_groups.front();
    plan.notes.push_back("world " + std::to_string(l.world) + " > " + std::to_string(kListEveryRankUpTo) +
                         ": messages listed for the ranks of the first pipeline group; the others are symmetric");
  }
  const bool given = args.layers_per_virtual_stage || args.virtual_stages_per_rank;
  plan.valid_v = valid_virtual_stages(args, l);
  MegatronArgs plain = args;
  plain.layers_per_virtual_stage = plain.virtual_stages_per_rank = 0;
  Layout l1 = l;
  l1.vp = 1;
  // Megatron runs 1F1B with one chunk per rank and interleaved 1F1B with more (megatron.md §3).
  plan.schedules.push_back(make_schedule(plain, l1, {"1f1b", 1}, plan.listed_ranks));
  if (l.pp > 1) {
    std::vector<int> vs = given ? std::vector<int>{l.vp} : plan.valid_v;
    for (int v : vs) {
      if (v > 1) plan.schedules.push_back(make_schedule(args, l, {"interleaved", v}, plan.listed_ranks));
    }
  }
  // Message ids are unique across the whole plan, so a result can name the messages it times.
  int id = 0;
  for (auto& s : plan.schedules)
    for (auto& m : s.messages) m.id = id++;
  return plan;
}

std::vector<PlannedSchedule> selected_schedules(const Plan& plan, const ScheduleSelection& selection) {
  std::vector<PlannedSchedule> out;
  const Schedule* base = nullptr;
  for (const auto& s : plan.schedules) {
    if (s.id.is_baseline()) base = &s;
    if (selection.matches(s.id)) out.push_back({s.id, &s, false});
  }
  // A reference with one chunk per rank runs on the 1F1B schedule; one that interleaves on each interleaved
  // schedule of the plan, with its v.
  if (base) {
    for (const auto& name : ScheduleRegistry::instance().names()) {
      const ScheduleGenerator& g = ScheduleRegistry::instance().find("schedule", name);
      if (!g.reference()) continue;
      if (!g.interleaves()) {
        if (selection.matches({name, 1})) out.push_back({{name, 1}, base, true});
        continue;
      }
      for (const auto& s : plan.schedules) {
        const ScheduleId id{name, s.id.v};
        if (s.id.v > 1 && (g.chunks() == 0 || g.chunks() == s.id.v) && selection.matches(id))
          out.push_back({id, &s, true});
      }
    }
  }
  // A schedule file runs on the messages of the plan's schedule with its v: 1F1B's, or interleaved's; beside
  // a --schedule that picks none of the plan's, it is not run either (the caller names what is missing).
  if (out.empty() && !selection.all()) return out;
  for (const ScheduleId& file : selection.files) {
    const Schedule* on = nullptr;
    for (const auto& s : plan.schedules) {
      if (s.id.v == file.v && (file.v == 1 ? s.id.is_baseline() : schedule_generator(s.id).interleaves())) on = &s;
    }
    if (!on) {
      std::string valid;
      for (int v : plan.valid_v) valid += (valid.empty() ? "" : ", ") + std::to_string(v);
      throw UsageError(schedule_file_source(file) + ": its " + std::to_string(file.v * plan.layout.pp) +
                       " stages are " + std::to_string(file.v) +
                       " model chunks per rank, but the plan has no schedule "
                       "with v " +
                       std::to_string(file.v) + " (it has " + schedule_names(plan) +
                       "; valid v for the "
                       "model: " +
                       (valid.empty() ? "none" : valid) + ")");
    }
    out.push_back({file, on, true});
  }
  return out;
}

std::string schedule_names(const Plan& plan) {
  std::string names;
  for (const auto& p : selected_schedules(plan, ScheduleSelection{})) names += (names.empty() ? "" : ", ") + p.id.key();
  return names;
}

}  // namespace pipebench
