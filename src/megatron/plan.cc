// SPDX-License-Identifier: Apache-2.0
// Message generation. Each count cites the section of the shared Megatron reference it implements.
#include "megatron/plan.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "core/checked_math.h"
#include "core/error.h"
#include "megatron/param_count.h"

namespace pipebench {

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

std::vector<std::pair<std::int64_t, int>> forward_table(const MegatronArgs& a, const Layout& l, int v) {
  const std::int64_t m = l.microbatches, p = l.pp;
  std::vector<std::pair<std::int64_t, int>> table;
  table.reserve(static_cast<std::size_t>(m * v));
  if (v <= 1) {
    for (std::int64_t k = 0; k < m; ++k) table.emplace_back(k, 0);
    return table;
  }
  if (a.version == MegatronVersion::kCoreV09) {
    for (std::int64_t k = 0; k < m * v; ++k) {
      table.emplace_back((k / (p * v)) * p + (k % p), static_cast<int>((k % (p * v)) / p));
    }
    return table;
  }
  const std::int64_t n = l.microbatch_group;
  for (std::int64_t g = 0; g < m; g += n) {
    const std::int64_t end = g + n >= m ? m : g + n;  // the last group takes the remainder
    for (int c = 0; c < v; ++c)
      for (std::int64_t mb = g; mb < end; ++mb) table.emplace_back(mb, c);
    if (end == m) break;
  }
  return table;
}

std::vector<int> forward_chunks(const MegatronArgs& a, const Layout& l, int v) {
  std::vector<int> chunks;
  for (const auto& e : forward_table(a, l, v)) chunks.push_back(e.second);
  return chunks;
}

std::vector<std::int64_t> dp_buckets(const MegatronArgs& a, const Layout& l, int r, int c, int v) {
  const auto tensors = chunk_tensors(a, l, r, c, v);
  const std::int64_t dp_cp = static_cast<std::int64_t>(l.dp) * l.cp;
  // Bucketing only applies with --overlap-grad-reduce, to chunk 0 of pipeline rank 0 (§4).
  const bool bucketed = a.overlap_grad_reduce && c == 0 && r == 0;
  const std::int64_t bucket_size =
      a.ddp_bucket_size ? a.ddp_bucket_size : std::max<std::int64_t>(40000000, 1000000 * dp_cp);
  const std::int64_t pad_to = std::lcm<std::int64_t>(dp_cp, 128);
  auto finish = [&](std::int64_t n) { return a.distributed_optimizer ? (n + pad_to - 1) / pad_to * pad_to : n; };
  auto size_of = [&](const ParamTensor& t) {  // distopt aligns every param start to 64 elements
    return a.distributed_optimizer ? (t.elements + 63) / 64 * 64 : t.elements;
  };
  std::vector<std::int64_t> out;
  std::int64_t current = 0, shared = 0;
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {  // backprop order
    if (a.distributed_optimizer && it->word_embedding && bucketed) {
      shared = checked_add(shared, size_of(*it),
                           "Megatron arguments: a gradient bucket");  // the shared word embedding gets its own bucket
      continue;
    }
    current = checked_add(current, size_of(*it), "Megatron arguments: a gradient bucket");
    if (bucketed && current >= bucket_size) {
      out.push_back(finish(current));
      current = 0;
    }
  }
  if (current) out.push_back(finish(current));
  if (shared) out.push_back(finish(shared));
  return out;
}

namespace {

const char* const kSizes = "Megatron arguments: a message size (sequence x micro batch x hidden, or the vocabulary)";

std::int64_t bytes_of(std::int64_t elements, DType t) {
  return checked_mul(elements, static_cast<std::int64_t>(dtype_size(t)), kSizes);
}

class Builder {
 public:
  Builder(const MegatronArgs& a, const Layout& l, int v) : a_(a), l_(l), v_(v) {}

  std::vector<PlanMessage> rank_messages(int rank) {
    out_.clear();
    const int r = l_.coords[static_cast<std::size_t>(rank)].pp;  // pipeline rank
    add_pipeline_p2p(rank, r);
    add_tensor_parallel(rank, r);
    add_gradient_reduction(rank, r);
    add_scalars(rank, r);
    return out_;
  }

 private:
  void add_pipeline_p2p(int rank, int r) {
    const int p = l_.pp;
    const auto& pg = Layout::group_of(l_.pp_groups, l_.pp_index, rank);
    const std::int64_t m = l_.microbatches, s = a_.seq_length, b = a_.micro_batch, h = a_.hidden;
    const DType act = a_.params_dtype;
    const bool sp = a_.sequence_parallel && a_.tp > 1;
    // Pipeline P2P (§2, §3): [s/cp (/t with SP), b, h] in the params dtype, peers (r +- 1) mod p.
    if (p > 1) {
      const std::int64_t elems = checked_product({s / a_.cp / (sp ? a_.tp : 1), b, h}, kSizes);
      const int next = pg[static_cast<std::size_t>((r + 1) % p)], prev = pg[static_cast<std::size_t>((r - 1 + p) % p)];
      const std::int64_t total = m * v_;
      const std::int64_t w = warmup_microbatches(a_, l_, v_, r);
      const std::vector<int> chunk =
          v_ > 1 ? forward_chunks(a_, l_, v_) : std::vector<int>(static_cast<std::size_t>(m), 0);
      std::map<std::tuple<std::string, int, std::string, Phase>, std::int64_t> p2p;
      for (std::int64_t k = 0; k < total; ++k) {
        const int cf = chunk[static_cast<std::size_t>(k)], cb = v_ - 1 - cf;
        const Phase fwd = k < w ? Phase::kWarmup : Phase::kSteady;
        const Phase bwd = k < total - w ? Phase::kSteady : Phase::kCooldown;
        // Only the global first virtual stage (r 0, chunk 0) has no input to receive or grad to send; only
        // the global last (r p-1, chunk v-1) has no output to send or grad to receive (§2 Peers).
        if (!(r == 0 && cf == 0)) ++p2p[{"recv", prev, "activation", fwd}];
        if (!(r == p - 1 && cf == v_ - 1)) ++p2p[{"send", next, "activation", fwd}];
        if (!(r == p - 1 && cb == v_ - 1)) ++p2p[{"recv", next, "activation grad", bwd}];
        if (!(r == 0 && cb == 0)) ++p2p[{"send", prev, "activation grad", bwd}];
      }
      for (const auto& [key, count] : p2p) {
        const auto& [op, peer, what, phase] = key;
        add(rank, op, {std::min(rank, peer), std::max(rank, peer)}, peer, elems, act, count, phase, what);
      }
    }
  }

  // TP collectives inside the schedule, the cross-entropy all-reduces and the data broadcasts.
  void add_tensor_parallel(int rank, int r) {
    const int p = l_.pp;
    const auto& tpg = Layout::group_of(l_.tp_groups, l_.tp_index, rank);
    const std::int64_t m = l_.microbatches, s = a_.seq_length, b = a_.micro_batch, h = a_.hidden;
    const DType act = a_.params_dtype;
    const bool sp = a_.sequence_parallel && a_.tp > 1;
    // Tensor parallelism (§6), per layer and microbatch, only when t > 1.
    const std::int64_t layers = static_cast<std::int64_t>(a_.num_layers) / p;  // all chunks of this rank
    const std::int64_t a_elems = checked_product({s / a_.cp, b, h}, kSizes);
    if (a_.tp > 1) {
      if (sp) {
        add(rank, "all_gather", tpg, -1, a_elems, act, 6 * layers * m, Phase::kPipeline, "TP per layer (SP)");
        add(rank, "reduce_scatter", tpg, -1, a_elems, act, 4 * layers * m, Phase::kPipeline, "TP per layer (SP)");
      } else {
        add(rank, "all_reduce", tpg, -1, a_elems, act, 4 * layers * m, Phase::kPipeline, "TP per layer");
      }
      if (r == 0)
        add(rank, sp ? "reduce_scatter" : "all_reduce", tpg, -1, a_elems, act, m, Phase::kPipeline,
            "TP embedding forward");
      if (r == p - 1) {
        if (sp) add(rank, "all_gather", tpg, -1, a_elems, act, m, Phase::kPipeline, "TP output layer forward");
        add(rank, sp ? "reduce_scatter" : "all_reduce", tpg, -1, a_elems, act, m, Phase::kPipeline,
            "TP output layer dgrad");
      }
    }
    // Vocab-parallel cross entropy on the last stage: 3 all-reduces of s*b fp32, even when t = 1 (§6).
    if (r == p - 1)
      add(rank, "all_reduce", tpg, -1, checked_mul(s / a_.cp, b, kSizes), DType::kFloat, 3 * m, Phase::kPipeline,
          "cross-entropy (max, sum, sum)");
    // Data broadcast over TP on the first and last stage, per microbatch (§6 get_batch_on_this_tp_rank).
    if (r == 0) {
      add(rank, "broadcast", tpg, -1, checked_mul(b, s, kSizes), DType::kInt64, 2 * m, Phase::kPipeline,
          "tokens, position ids");
    }
    if (r == p - 1) {
      add(rank, "broadcast", tpg, -1, checked_mul(b, s, kSizes), DType::kInt64, m, Phase::kPipeline, "labels");
      add(rank, "broadcast", tpg, -1, checked_mul(b, s, kSizes), DType::kFloat, m, Phase::kPipeline, "loss mask");
    }
    if (r == 0 || r == p - 1)
      add(rank, "broadcast", tpg, -1, checked_product({b, s, s}, kSizes), DType::kUint8, m, Phase::kPipeline,
          "attention mask");
  }

  // After the pipeline: DP gradients, word-embedding grad, sequence-parallel params.
  void add_gradient_reduction(int rank, int r) {
    const int p = l_.pp;
    const auto& tpg = Layout::group_of(l_.tp_groups, l_.tp_index, rank);
    const auto& dpg = Layout::group_of(l_.dp_cp_groups, l_.dp_cp_index, rank);
    const std::int64_t h = a_.hidden;
    const DType grad = grad_dtype(a_);
    const bool sp = a_.sequence_parallel && a_.tp > 1;
    // DP gradient reduction: one buffer per model chunk (§4).
    for (int c = 0; c < v_; ++c) {
      const auto buckets = dp_buckets(a_, l_, r, c, v_);
      const std::string what = "dp grads, chunk " + std::to_string(c);
      std::map<std::int64_t, std::int64_t> by_size;
      for (auto bucket : buckets) ++by_size[bucket];
      for (const auto& [size, count] : by_size) {
        if (a_.distributed_optimizer) {
          add(rank, "reduce_scatter", dpg, -1, size, grad, count, Phase::kAfter, what);
          add(rank, "all_gather", dpg, -1, size, a_.params_dtype, count, Phase::kAfter,
              "params, chunk " + std::to_string(c));
        } else {
          add(rank, "all_reduce", dpg, -1, size, grad, count, Phase::kAfter, what);
        }
      }
    }
    // Word-embedding grad all-reduce over {first, last} pipeline rank, tied weights, p > 1 (§5).
    if (p > 1 && !a_.untie_embeddings && (r == 0 || r == p - 1)) {
      const auto& eg = Layout::group_of(l_.embedding_groups, l_.embedding_index, rank);
      add(rank, "all_reduce", eg, -1, checked_mul(padded_vocab(a_), h, kSizes) / a_.tp, grad, 1, Phase::kAfter,
          "word-embedding grad");
    }
    // Sequence-parallel params (norms, row-parallel biases): one coalesced TP all-reduce (§6).
    if (sp) {
      std::int64_t replicated = 0;
      for (int c = 0; c < v_; ++c) {
        for (const auto& t : chunk_tensors(a_, l_, r, c, v_)) {
          const bool norm = t.name.find("layernorm") != std::string::npos;
          const bool row_bias = t.name == "self_attention.linear_proj.bias" || t.name == "mlp.linear_fc2.bias";
          if (norm || row_bias) replicated = checked_add(replicated, t.elements, kSizes);
        }
      }
      add(rank, "all_reduce", tpg, -1, replicated, grad, 1, Phase::kAfter, "sequence-parallel params");
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
      add(rank, "all_reduce", stats_group, -1, 1, DType::kFloat, 1, Phase::kAfter, "found_inf (max)");
    add(rank, "all_reduce", stats_group, -1, 1, DType::kFloat, 1, Phase::kAfter, "grad norm (sum)");
    add(rank, "all_reduce", mpg, -1, 1, DType::kInt32, 1, Phase::kAfter, "update_successful (min)");
    add(rank, "all_reduce", mpg, -1, 1, DType::kFloat, 1, Phase::kAfter, "grad-norm stat (max)");
    add(rank, "all_reduce", world, -1, 1, DType::kInt32, 1, Phase::kAfter, "rerun flag (sum)");
    if (r == p - 1) {
      const bool per_mb = a_.version == MegatronVersion::kCoreV09;
      add(rank, "all_reduce", dpg, -1, 2, DType::kFloat, per_mb ? m : 1, per_mb ? Phase::kPipeline : Phase::kAfter,
          "loss");
    }
  }

  void add(int rank, const std::string& op, const std::vector<int>& group, int peer, std::int64_t elements, DType t,
           std::int64_t count, Phase phase, const std::string& what) {
    if (count <= 0) return;
    PlanMessage msg;
    msg.rank = rank;
    msg.op = op;
    msg.group = group;
    msg.peer = peer;
    msg.elements = elements;
    msg.dtype = t;
    msg.bytes = bytes_of(elements, t);
    (void)checked_mul(msg.bytes, count, kSizes);  // the bytes per iteration must fit too (summaries add them)
    msg.count = count;
    msg.phase = phase;
    msg.what = what;
    out_.push_back(msg);
  }

  const MegatronArgs& a_;
  const Layout& l_;
  int v_;
  std::vector<PlanMessage> out_;
};

Schedule make_schedule(const MegatronArgs& a, const Layout& l, int v, const std::vector<int>& ranks) {
  Schedule s;
  s.name = v > 1 ? "interleaved" : "1f1b";
  s.v = v;
  for (int r = 0; r < l.pp; ++r) {
    s.warmup.push_back(warmup_microbatches(a, l, v, r));
    for (int c = 0; c < v; ++c) s.params.push_back({r, c, total_elements(chunk_tensors(a, l, r, c, v))});
  }
  // Bubble fractions of Narayanan et al., SC21, Sec. 2.2: (p-1)/m and (p-1)/(v m).
  s.bubble_ideal = static_cast<double>(l.pp - 1) / (static_cast<double>(v) * static_cast<double>(l.microbatches));
  Builder b(a, l, v);
  int id = 0;
  for (int rank : ranks) {
    for (auto& m : b.rank_messages(rank)) {
      m.id = id++;
      s.messages.push_back(std::move(m));
    }
  }
  return s;
}

}  // namespace

Plan make_plan(const MegatronArgs& args, int gpus_present) {
  Plan plan;
  plan.args = args;
  plan.layout = make_layout(args, gpus_present);
  plan.padded_vocab_size = padded_vocab(args);
  plan.grad_dtype = grad_dtype(args);
  const Layout& l = plan.layout;
  if (args.sequence_parallel && args.tp == 1)
    plan.notes.push_back("--sequence-parallel with t = 1 is turned off by Megatron");
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
  plan.schedules.push_back(make_schedule(plain, l1, 1, plan.listed_ranks));
  if (l.pp > 1) {
    std::vector<int> vs = given ? std::vector<int>{l.vp} : plan.valid_v;
    for (int v : vs) {
      if (v > 1) plan.schedules.push_back(make_schedule(args, l, v, plan.listed_ranks));
    }
  }
  // Message ids are unique across the whole plan, so a result can name the messages it times.
  int id = 0;
  for (auto& s : plan.schedules)
    for (auto& m : s.messages) m.id = id++;
  if (!args.max_position_given && !args.rope) {
    plan.notes.push_back(
        "--max-position-embeddings taken as --seq-length where not given (only stage 0's params depend on it)");
  }
  return plan;
}

}  // namespace pipebench
