// SPDX-License-Identifier: Apache-2.0
// Layout and validation with Megatron's rules (megatron.md §1, arguments.py validate_args).
#include "megatron/layout.h"

#include <algorithm>
#include <array>
#include <map>

#include "core/checked_math.h"
#include "core/error.h"
#include "megatron/pipeline_split.h"

namespace pipebench {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// The expert grid's sizes and Megatron's rules on them (parallel_state.py initialize_model_parallel and
// RankGenerator): the world divisible by etp x ep x pp, ep named in the order string, and with an order
// that does not end in pp (tp-pp-dp) the expert DP size equal to the dense one.
// Where the world came from, for the messages that refuse it (a number the user may never have given).
std::string world_origin(const MegatronArgs& a, int gpus_present) {
  if (a.world_size) return "";
  if (gpus_present > 0) return " (--world-size was not given: the " + str(gpus_present) + " GPUs present were counted)";
  return " (no --world-size and no GPU here: tensor x context x pipeline parallel size was taken; give --world-size N "
         "or the torchrun line)";
}

void set_expert_sizes(const MegatronArgs& a, Layout& l, const std::string& origin) {
  if (a.num_experts == 0) return;
  l.moe = true;
  l.ep = a.ep;
  l.etp = expert_tp(a);
  const std::int64_t grid = static_cast<std::int64_t>(l.etp) * l.ep * l.pp;
  if (l.world % grid != 0) {
    throw UsageError("world_size (" + str(l.world) +
                     ") is not divisible by expert_tensor_model_pipeline_parallel size (" + str(grid) +
                     " = expert tensor " + str(l.etp) + " x expert model " + str(l.ep) + " x pipeline " + str(l.pp) +
                     ")" + origin);
  }
  l.edp = static_cast<int>(l.world / grid);
  if (l.edp % a.distributed_optimizer_instances != 0)
    throw UsageError("--num-distributed-optimizer-instances " + str(a.distributed_optimizer_instances) +
                     " does not divide the expert data parallel size (" + str(l.edp) + ")");
  if (l.rank_order == "tp-pp-dp" && l.ep > 1)
    throw UsageError("The size of (ep) is (" + str(l.ep) + "), but you haven't specified the order (tp-pp-dp)");
  if (l.rank_order == "tp-pp-dp" && l.pp > 1 && l.edp != l.dp)
    throw UsageError(
        "When not using pp-last rank ordering, the data parallel size of the attention and moe layers must be the "
        "same (expert data parallel " +
        str(l.edp) + ", data parallel " + str(l.dp) + ")");
}

}  // namespace

int Layout::rank_of(int t, int c, int d, int p) const {
  // tp-cp-ep-dp-pp: tp varies fastest, pp slowest (Megatron's default order, ep = 1 here).
  if (rank_order == "tp-pp-dp") return t + tp * (c + cp * (p + pp * d));
  return t + tp * (c + cp * (d + dp * p));
}

const std::vector<int>& Layout::group_of(const std::vector<std::vector<int>>& groups, const std::vector<int>& index,
                                         int rank) {
  return groups.at(static_cast<std::size_t>(index.at(static_cast<std::size_t>(rank))));
}

int Layout::expert_rank_of(int et, int e, int ed, int p) const {
  // The expert RankGenerator's order: tp-cp-ep-dp-pp (cp = 1 there), or tp-pp-dp (ep = 1 there).
  if (rank_order == "tp-pp-dp") return et + etp * (e + ep * (p + pp * ed));
  return et + etp * (e + ep * (ed + edp * p));
}

namespace {

// v from the arguments where the split is not even (pipeline_split.h): arguments.py takes
// --num-layers-per-virtual-pipeline-stage against the layers per stage with the embedding and loss slots,
// and refuses it with uneven first / last stages.
int uneven_virtual_stages(const MegatronArgs& a) {
  if (const std::string why = pipeline_split_problem(a, a.pp, 1); !why.empty()) throw UsageError(why);
  int v = 1;
  if (a.layers_per_virtual_stage) {
    if (a.first_stage_layers > 0 || a.last_stage_layers > 0)
      throw UsageError("--num-layers-per-virtual-pipeline-stage " + str(a.layers_per_virtual_stage) +
                       ": use --num-virtual-stages-per-pipeline-rank for the virtual pipeline size with uneven "
                       "pipeline stages (--decoder-first/last-pipeline-num-layers)");
    const int slots = a.num_layers + (a.account_for_embedding ? 1 : 0) + (a.account_for_loss ? 1 : 0);
    if ((slots / a.pp) % a.layers_per_virtual_stage != 0) {
      throw UsageError("number of layers per pipeline stage (" + str(slots / a.pp) +
                       ", with the embedding and loss slots) must be divisible by number of layers per virtual "
                       "pipeline stage (" +
                       str(a.layers_per_virtual_stage) + ")");
    }
    v = slots / a.pp / a.layers_per_virtual_stage;
  } else if (a.virtual_stages_per_rank) {
    v = a.virtual_stages_per_rank;
  }
  // Megatron has no interleaving on one pipeline rank (the virtual size is ignored there).
  if (v > 1 && a.pp > 1) {
    if (const std::string why = pipeline_split_problem(a, a.pp, v); !why.empty()) throw UsageError(why);
  }
  return v;
}

}  // namespace

int virtual_stages(const MegatronArgs& a) {
  if (a.layers_per_virtual_stage && a.virtual_stages_per_rank) {
    throw UsageError(
        "Megatron arguments: --num-layers-per-virtual-pipeline-stage and "
        "--num-virtual-stages-per-pipeline-rank cannot both be set");
  }
  if (uneven_pipeline_split(a)) return uneven_virtual_stages(a);
  if (a.num_layers % a.pp != 0) {
    throw UsageError("num_layers " + str(a.num_layers) + " is not divisible by pipeline size " + str(a.pp));
  }
  const int per_stage = a.num_layers / a.pp;
  int v = 1;
  if (a.layers_per_virtual_stage) {
    if (per_stage % a.layers_per_virtual_stage != 0) {
      throw UsageError("number of layers per pipeline stage (" + str(per_stage) +
                       ") must be divisible by number of layers per virtual pipeline stage (" +
                       str(a.layers_per_virtual_stage) + ")");
    }
    v = per_stage / a.layers_per_virtual_stage;
  } else if (a.virtual_stages_per_rank) {
    if (per_stage % a.virtual_stages_per_rank != 0) {
      throw UsageError("number of layers per pipeline stage (" + str(per_stage) +
                       ") must be divisible by the number of virtual stages per pipeline rank (" +
                       str(a.virtual_stages_per_rank) + ")");
    }
    v = a.virtual_stages_per_rank;
  }
  return v;
}

std::string interleaving_problem(const MegatronArgs& a, const Layout& l, int v) {
  const int p = l.pp;
  const std::int64_t m = l.microbatches;
  if (v <= 1) return "";
  if (uneven_pipeline_split(a)) {
    if (p < 2) return "interleaving needs pipeline size > 1";
    if (const std::string why = pipeline_split_problem(a, p, v); !why.empty()) return why;
  } else if ((a.num_layers / p) % v != 0) {
    return "number of layers per pipeline stage (" + str(a.num_layers / p) + ") is not divisible by v = " + str(v);
  }
  if (p < 2) return "interleaving needs pipeline size > 1";
  if (p <= 2 && !a.overlap_p2p) {
    return "pipeline-model-parallel size should be greater than 2 with interleaved schedule without p2p overlap "
           "(p = " +
           str(p) + ")";
  }
  if (a.version == MegatronVersion::kCoreV09) {
    if (m % p != 0) {
      return "number of microbatches (" + str(m) + ") is not divisible by pipeline-model-parallel-size (" + str(p) +
             ") when using interleaved schedule";
    }
    return "";
  }
  const int n = l.microbatch_group;
  if (n < p || n > m) {
    return "microbatch group size per virtual stage (" + str(n) + ") must be >= pipeline size (" + str(p) +
           ") and <= number of microbatches (" + str(m) + ")";
  }
  if (m % n != 0 && m % n < p) {
    return "number of microbatches (" + str(m) + ") modulo microbatch group size (" + str(n) +
           ") must be 0 or >= pipeline size (" + str(p) + ") to avoid dependency bubbles";
  }
  return "";
}

std::vector<int> valid_virtual_stages(const MegatronArgs& a, const Layout& l) {
  std::vector<int> out;
  // Every v up to the layers of the largest stage (uneven: with its embedding or loss slot) that the split allows
  // (interleaving_problem: an even split's layers per stage divisible by v).
  const int most = uneven_pipeline_split(a) ? a.num_layers + 2 : a.num_layers / l.pp;
  for (int v = 2; v <= most; ++v) {
    if (interleaving_problem(a, l, v).empty()) out.push_back(v);
  }
  return out;
}

Layout make_layout(const MegatronArgs& a, int gpus_present) {
  Layout l;
  l.tp = a.tp;
  l.cp = a.cp;
  l.pp = a.pp;
  l.rank_order = a.rank_order;
  const int v = virtual_stages(a);  // the layer rules first: they do not depend on the machine
  const std::int64_t model64 = static_cast<std::int64_t>(a.tp) * a.cp * a.pp;
  if (model64 > kMaxWorldSize) {
    throw UsageError("tensor x context x pipeline parallel size (" + str(model64) + ") is above the limit of " +
                     str(kMaxWorldSize) + " ranks");
  }
  const int model = static_cast<int>(model64);
  l.world = a.world_size ? a.world_size : gpus_present > 0 ? gpus_present : model;
  if (l.world % model != 0) {
    throw UsageError("world size (" + str(l.world) + ") is not divisible by tensor parallel size (" + str(a.tp) +
                     ") times pipeline parallel size (" + str(a.pp) + ") times context parallel size (" + str(a.cp) +
                     ")" + world_origin(a, gpus_present));
  }
  if (l.world > kMaxWorldSize) {
    throw UsageError("world size (" + str(l.world) + ") is above the limit of " + str(kMaxWorldSize) + " ranks");
  }
  l.dp = l.world / model;
  if (a.heads % a.tp != 0) {
    throw UsageError("number of attention heads (" + str(a.heads) + ") must be divisible by tensor parallel size (" +
                     str(a.tp) + ")");
  }
  // TransformerConfig.__post_init__: the query groups a multiple or a divisor of t (fewer groups than
  // TP ranks: each rank gathers qkv and keeps one group, attention.py get_query_key_value_tensors).
  if (a.gqa && a.query_groups && a.query_groups % a.tp != 0 && a.tp % a.query_groups != 0) {
    throw UsageError("num_query_groups (" + str(a.query_groups) + ") must be a multiple or divisor of " +
                     "tensor_model_parallel_size (" + str(a.tp) + ")");
  }
  if (a.cp > 1 && a.seq_length % (2 * a.cp) != 0) {
    throw UsageError("sequence length (" + str(a.seq_length) + ") must be divisible by 2 x context parallel size (" +
                     str(2 * a.cp) + ")");
  }
  for (const auto& type : a.cp_comm_type) {
    const int a2a = type == "a2a" ? a.cp : type == "a2a+p2p" ? a.hierarchical_cp_sizes.at(0) : 1;
    if (a.cp > 1 && (a.heads / a.tp) % a2a != 0) {
      throw UsageError("--cp-comm-type " + type + ": the attention heads per TP rank (" + str(a.heads / a.tp) +
                       ") must be divisible by the all-to-all size (" + str(a2a) + ")");
    }
  }
  if ((static_cast<std::int64_t>(l.dp) * a.cp) % a.distributed_optimizer_instances != 0) {
    throw UsageError("--num-distributed-optimizer-instances " + str(a.distributed_optimizer_instances) +
                     " does not divide data x context parallel size (" + str(static_cast<std::int64_t>(l.dp) * a.cp) +
                     ")");
  }
  const std::int64_t per_step = checked_mul(a.micro_batch, l.dp, "micro batch size x data parallel size");
  if (a.global_batch % per_step != 0) {
    throw UsageError("global batch size (" + str(a.global_batch) + ") is not divisible by micro batch size (" +
                     str(a.micro_batch) + ") times data parallel size (" + str(l.dp) + ")");
  }
  l.microbatches = a.global_batch / per_step;
  if (l.microbatches > kMaxMicrobatches) {
    throw UsageError("number of microbatches (" + str(l.microbatches) + " = global batch size / (micro batch size x " +
                     "data parallel size)) is above the limit of " + str(kMaxMicrobatches));
  }
  set_expert_sizes(a, l, world_origin(a, gpus_present));
  l.microbatch_group = a.microbatch_group_size ? a.microbatch_group_size : a.pp;
  l.vp = v;
  const std::string why = interleaving_problem(a, l, l.vp);
  if (!why.empty()) throw UsageError(why);
  build_layout_groups(l);
  return l;
}

namespace {

using Coords = std::array<int, 4>;

// One kind of group, built in the rank order: the ranks that share every coordinate but the varying ones,
// each group in increasing rank order, numbered in the order of its lowest rank; with an index, the rank ->
// group map (linear in the world). coords_of(r): rank r's four coordinates, each below its `sizes` entry;
// rank_of: the rank at four coordinates.
template <typename CoordsOf, typename RankOf>
void build_groups(int world, const Coords& sizes, const std::array<bool, 4>& vary, CoordsOf coords_of, RankOf rank_of,
                  std::vector<std::vector<int>>& groups, std::vector<int>* index) {
  groups.clear();
  if (index) index->assign(static_cast<std::size_t>(world), -1);
  std::map<Coords, std::size_t> seen;
  for (int r = 0; r < world; ++r) {
    Coords key = coords_of(r);  // the fixed coordinates, the varying ones 0: the group's first member
    for (std::size_t i = 0; i < key.size(); ++i) {
      if (vary[i]) key[i] = 0;
    }
    const auto [it, added] = seen.emplace(key, groups.size());
    if (added) {
      std::vector<int> g;
      for (Coords c = key;;) {  // every value of the varying coordinates, the first fastest
        g.push_back(rank_of(c));
        std::size_t i = 0;
        for (; i < c.size() && (!vary[i] || ++c[i] == sizes[i]); ++i) {
          if (vary[i]) c[i] = 0;
        }
        if (i == c.size()) break;
      }
      std::sort(g.begin(), g.end());
      groups.push_back(std::move(g));
    }
    if (index) (*index)[static_cast<std::size_t>(r)] = static_cast<int>(it->second);
  }
}

void reset_coords(Layout& l) {
  const auto n = static_cast<std::size_t>(l.world);
  l.embedding_groups.clear();
  l.coords.assign(n, {});
  l.embedding_index.assign(n, -1);
  for (int p = 0; p < l.pp; ++p)
    for (int d = 0; d < l.dp; ++d)
      for (int c = 0; c < l.cp; ++c)
        for (int t = 0; t < l.tp; ++t) l.coords[static_cast<std::size_t>(l.rank_of(t, c, d, p))] = {t, c, d, p};
}

// TP, CP, DP, DP x CP (the gradient reduction's group), PP, and TP x PP (model parallel).
void build_dense_groups(Layout& l) {
  const auto build = [&l](std::vector<std::vector<int>>& groups, std::vector<int>* index, std::array<bool, 4> vary) {
    build_groups(
        l.world, {l.tp, l.cp, l.dp, l.pp}, vary,
        [&l](int r) {
          const Layout::Coord& x = l.coords[static_cast<std::size_t>(r)];
          return Coords{x.tp, x.cp, x.dp, x.pp};
        },
        [&l](const Coords& c) { return l.rank_of(c[0], c[1], c[2], c[3]); }, groups, index);
  };
  build(l.tp_groups, &l.tp_index, {true, false, false, false});
  build(l.cp_groups, nullptr, {false, true, false, false});
  build(l.dp_groups, nullptr, {false, false, true, false});
  build(l.dp_cp_groups, &l.dp_cp_index, {false, true, true, false});
  build(l.pp_groups, &l.pp_index, {false, false, false, true});
  build(l.model_parallel_groups, &l.mp_index, {true, false, false, true});
}

void build_embedding_groups(Layout& l) {
  // Embedding group = {first, last} rank of each pipeline group (default_embedding_ranks, §5).
  for (std::size_t gi = 0; gi < l.pp_groups.size(); ++gi) {
    const auto& pg = l.pp_groups[gi];
    std::vector<int> e = {pg.front()};
    if (pg.size() > 1) e.push_back(pg.back());
    l.embedding_groups.push_back(e);
    for (int r : e) l.embedding_index[static_cast<std::size_t>(r)] = static_cast<int>(gi);
  }
}

// The expert groups (parallel_state.py: get_ranks('ep'), ('tp'), ('tp-ep'), ('dp') of the expert
// RankGenerator): the ranks that share every expert coordinate but the varying ones, in increasing
// order of the varying coordinates (etp fastest).
void build_expert_groups(Layout& l) {
  l.expert_coords.assign(static_cast<std::size_t>(l.world), {});
  for (int p = 0; p < l.pp; ++p)
    for (int d = 0; d < l.edp; ++d)
      for (int e = 0; e < l.ep; ++e)
        for (int t = 0; t < l.etp; ++t)
          l.expert_coords[static_cast<std::size_t>(l.expert_rank_of(t, e, d, p))] = {t, e, d};
  const auto build = [&l](std::vector<std::vector<int>>& groups, std::vector<int>& index, std::array<bool, 4> vary) {
    build_groups(
        l.world, {l.etp, l.ep, l.edp, l.pp}, vary,
        [&l](int r) {
          const Layout::ExpertCoord& x = l.expert_coords[static_cast<std::size_t>(r)];
          return Coords{x.etp, x.ep, x.edp, l.coords[static_cast<std::size_t>(r)].pp};
        },
        [&l](const Coords& c) { return l.expert_rank_of(c[0], c[1], c[2], c[3]); }, groups, &index);
  };
  build(l.ep_groups, l.ep_index, {false, true, false, false});
  build(l.expert_tp_groups, l.expert_tp_index, {true, false, false, false});
  build(l.tp_ep_groups, l.tp_ep_index, {true, true, false, false});
  build(l.expert_dp_groups, l.expert_dp_index, {false, false, true, false});
}

}  // namespace

void build_layout_groups(Layout& l) {
  reset_coords(l);
  build_dense_groups(l);
  build_embedding_groups(l);
  if (l.moe) build_expert_groups(l);
}

}  // namespace pipebench
