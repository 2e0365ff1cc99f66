// SPDX-License-Identifier: Apache-2.0
// Pipeline split (pipeline_split.h): Megatron-LM's layer counts and offsets per pipeline rank and chunk.
#include "megatron/pipeline_split.h"

namespace pipebench {
namespace {

std::string str(long long v) { return std::to_string(v); }

bool uneven_first_last(const MegatronArgs& a) { return a.first_stage_layers > 0 || a.last_stage_layers > 0; }

// The arguments that decide the split, as given ("--num-layers 10, --decoder-first-pipeline-num-layers 2").
std::string given(const MegatronArgs& a) {
  std::string out = "--num-layers " + str(a.num_layers);
  if (a.first_stage_layers > 0) out += ", --decoder-first-pipeline-num-layers " + str(a.first_stage_layers);
  if (a.last_stage_layers > 0) out += ", --decoder-last-pipeline-num-layers " + str(a.last_stage_layers);
  if (a.account_for_embedding) out += ", --account-for-embedding-in-pipeline-split";
  if (a.account_for_loss) out += ", --account-for-loss-in-pipeline-split";
  return out;
}

// Uneven first / last stages (transformer_config.py __post_init__, "Uneven PP"): the stages not named
// share the rest evenly; with v chunks each named stage's count and each middle stage's divide by v.
struct FirstLast {
  int middle_stages = 0, middle_layers = 0;
};

FirstLast first_last(const MegatronArgs& a, int p) {  // a count not given is 0
  const int named = (a.first_stage_layers > 0 ? 1 : 0) + (a.last_stage_layers > 0 ? 1 : 0);
  return {p - named, a.num_layers - a.first_stage_layers - a.last_stage_layers};
}

std::string first_last_problem(const MegatronArgs& a, int p, int v) {
  const FirstLast s = first_last(a, p);
  if (s.middle_stages < 0)
    return "--decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers together need pipeline size "
           ">= 2 (pipeline size " +
           str(p) + ")";
  if (s.middle_layers < 0)
    return "the first and last pipeline stages take more layers than the model has (" + given(a) + ")";
  if ((s.middle_layers == 0) != (s.middle_stages == 0))
    return "Mismatch: " + str(s.middle_layers) + " middle layers remaining but " + str(s.middle_stages) +
           " middle pipeline stages available (" + given(a) + ", pipeline size " + str(p) + ")";
  if (s.middle_stages > 0 && s.middle_layers % s.middle_stages != 0)
    return "number of layers at middle stages (" + str(s.middle_layers) +
           ") must be divisible by the middle pipeline size (" + str(s.middle_stages) + ") (" + given(a) +
           ", pipeline size " + str(p) + ")";
  if (v <= 1) return "";
  if (a.first_stage_layers % v != 0)
    return "--decoder-first-pipeline-num-layers " + str(a.first_stage_layers) +
           ": the layers of the first stage must be divisible by the virtual pipeline size " + str(v);
  if (a.last_stage_layers % v != 0)
    return "--decoder-last-pipeline-num-layers " + str(a.last_stage_layers) +
           ": the layers of the last stage must be divisible by the virtual pipeline size " + str(v);
  if (s.middle_stages > 0 && (s.middle_layers / s.middle_stages) % v != 0)
    return "number of layers on each middle pipeline rank (" + str(s.middle_layers / s.middle_stages) +
           ") must be divisible by the virtual pipeline size " + str(v) + " (" + given(a) + ")";
  // get_transformer_layer_offset divides the middle stages' chunk layers by the number of middle stages,
  // which is 0 here: Megatron stops with a ZeroDivisionError on the last rank.
  if (s.middle_stages == 0 && a.first_stage_layers > 0 && a.last_stage_layers > 0)
    return "--decoder-first-pipeline-num-layers with --decoder-last-pipeline-num-layers on pipeline size 2 leaves no "
           "middle stage, and Megatron's interleaved layer offset divides by the middle stages "
           "(get_transformer_layer_offset); interleaving v " +
           str(v) + " is not possible";
  return "";
}

// The embedding / loss counted as a layer (transformer_config.py __post_init__, arguments.py).
int layer_slots(const MegatronArgs& a) {
  return a.num_layers + (a.account_for_embedding ? 1 : 0) + (a.account_for_loss ? 1 : 0);
}

std::string accounted_problem(const MegatronArgs& a, int p, int v) {
  const int slots = layer_slots(a);
  if (slots == a.num_layers) {  // an even split: make_layout's messages (layout.cc)
    if (slots % p != 0) return "num_layers " + str(slots) + " is not divisible by pipeline size " + str(p);
    if (v > 1 && (slots / p) % v != 0)
      return "number of layers per pipeline stage (" + str(slots / p) + ") is not divisible by v = " + str(v);
    return "";
  }
  if (slots % p != 0)
    return "number of layers with the embedding and loss slots (" + str(slots) +
           ") must be divisible by pipeline size " + str(p) + " (" + given(a) + ")";
  if (v > 1 && (slots / p) % v != 0)
    return "number of layers on each pipeline rank (" + str(slots / p) +
           ", with the embedding and loss slots) must be divisible by the virtual pipeline size " + str(v) + " (" +
           given(a) + ")";
  return "";
}

}  // namespace

bool uneven_pipeline_split(const MegatronArgs& a) {
  return uneven_first_last(a) || a.account_for_embedding || a.account_for_loss;
}

std::string pipeline_split_problem(const MegatronArgs& a, int p, int v) {
  if (uneven_first_last(a) && (a.account_for_embedding || a.account_for_loss))
    return "--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers cannot be combined with "
           "--account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split (" +
           given(a) + ")";
  if (uneven_first_last(a)) return first_last_problem(a, p, v);
  return accounted_problem(a, p, v);
}

LayerRange chunk_layer_range(const MegatronArgs& a, int p, int r, int c, int v) {
  if (uneven_first_last(a)) {
    const FirstLast s = first_last(a, p);
    const int per_middle = s.middle_stages > 0 ? s.middle_layers / s.middle_stages : 0;
    int on_rank = per_middle;
    if (r == 0 && a.first_stage_layers > 0) on_rank = a.first_stage_layers;
    if (r == p - 1 && a.last_stage_layers > 0) on_rank = a.last_stage_layers;
    // get_transformer_layer_offset: chunk c of every rank after the c-1 rounds of all ranks' chunks, then
    // the first stage's chunk and the middle ranks before this one.
    const int first_chunk = a.first_stage_layers / v;
    const int round = a.num_layers / v;
    const int middle_rank = a.first_stage_layers > 0 ? r - 1 : r;
    const int offset = r == 0 ? c * round : c * round + first_chunk + middle_rank * (per_middle / v);
    return {offset, on_rank / v};
  }
  const int slots = layer_slots(a), per_chunk = slots / p / v;
  const bool embedding_here = a.account_for_embedding && r == 0 && c == 0;
  const bool loss_here = a.account_for_loss && r == p - 1 && c == v - 1;
  // The embedding slot shifts every later chunk's first layer back by one.
  const int offset = c * (slots / v) + r * per_chunk - (a.account_for_embedding && !embedding_here ? 1 : 0);
  return {offset, per_chunk - (embedding_here ? 1 : 0) - (loss_here ? 1 : 0)};
}

std::string pipeline_split_arguments(const MegatronArgs& a) { return given(a); }

}  // namespace pipebench
