// SPDX-License-Identifier: Apache-2.0
// The parallel layout of a Megatron-LM job: sizes, microbatches, virtual stages, and the process groups
// as lists of global ranks, in Megatron's rank order (default tp-cp-ep-dp-pp, tp fastest).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "megatron/model_args.h"

namespace pipebench {

// Limits of a plan (README "Limits"): plan, predict and replay walk every microbatch of every listed
// rank, and every rank once, so beyond these they would need unbounded time and memory. Each is far above
// a real job (the largest published runs: ~100k GPUs, a few thousand microbatches, ~200 layers).
inline constexpr int kMaxWorldSize = 1 << 20;
inline constexpr std::int64_t kMaxMicrobatches = 1 << 14;
inline constexpr int kMaxLayers = 4096;
// Experts of an MoE layer: the parameter list has tensors per local expert (the largest published models
// have a few hundred experts).
inline constexpr std::int64_t kMaxExperts = 1 << 14;

struct Layout {
  int world = 1, tp = 1, cp = 1, dp = 1, pp = 1;
  int vp = 1;                     // virtual stages per pipeline rank (1: not interleaved)
  std::int64_t microbatches = 1;  // m = global batch / (micro batch * dp)
  int microbatch_group = 1;       // N, the interleaved schedule's group size (main); p by default
  std::string rank_order;
  struct Coord {
    int tp = 0, cp = 0, dp = 0, pp = 0;
  };
  std::vector<Coord> coords;  // per global rank
  std::vector<std::vector<int>> tp_groups, cp_groups, dp_groups, dp_cp_groups, pp_groups, embedding_groups,
      model_parallel_groups;

  [[nodiscard]] int rank_of(int tp, int cp, int dp, int pp) const;
  // The group of `rank` in one of the group lists above.
  [[nodiscard]] static const std::vector<int>& group_of(const std::vector<std::vector<int>>& groups,
                                                        const std::vector<int>& index, int rank);
  std::vector<int> tp_index, dp_cp_index, pp_index, mp_index, embedding_index;  // rank -> group index (-1 none)

  // Mixture of Experts (parallel_state.py initialize_model_parallel): the expert layers run on a second
  // rank grid of the same world, expert TP (etp) x EP (ep) x expert DP (edp) x pp, in the same order
  // string without cp (default tp-cp-ep-dp-pp: etp fastest, then ep, edp, pp). Built only with MoE.
  bool moe = false;
  int ep = 1, etp = 1, edp = 1;
  struct ExpertCoord {
    int etp = 0, ep = 0, edp = 0;
  };
  std::vector<ExpertCoord> expert_coords;  // per global rank (MoE only)
  // ep: the all-to-all group; expert_tp: expert TP; tp_ep: expert TP x EP (the allgather dispatcher's and
  // the tokens-per-expert gather's group); expert_dp: where expert gradients are reduced.
  std::vector<std::vector<int>> ep_groups, expert_tp_groups, tp_ep_groups, expert_dp_groups;
  std::vector<int> ep_index, expert_tp_index, tp_ep_index, expert_dp_index;
  [[nodiscard]] int expert_rank_of(int etp, int ep, int edp, int pp) const;
};

// Checks Megatron's rules (each error message states the rule) and builds the layout for one v (the
// given --num-layers-per-virtual-pipeline-stage / --num-virtual-stages-per-pipeline-rank, or 1).
// world_size: --world-size, else gpus_present when > 0, else t*cp*p (d = 1). Throws UsageError.
[[nodiscard]] Layout make_layout(const MegatronArgs& a, int gpus_present);

// Coordinates, process groups and rank -> group indices of a layout whose sizes (world, tp, cp, dp, pp)
// and rank_order are set. Clears any groups already there.
void build_layout_groups(Layout& l);

// v from the arguments (1 when none is given). Throws UsageError for Megatron's rules.
[[nodiscard]] int virtual_stages(const MegatronArgs& a);

// Why interleaving with v chunks is invalid for this model and layout ("" when valid).
[[nodiscard]] std::string interleaving_problem(const MegatronArgs& a, const Layout& l, int v);

// Every v >= 2 that divides the layers per stage and passes the interleaving rules.
[[nodiscard]] std::vector<int> valid_virtual_stages(const MegatronArgs& a, const Layout& l);

}  // namespace pipebench
