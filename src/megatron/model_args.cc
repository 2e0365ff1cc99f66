// SPDX-License-Identifier: Apache-2.0
// Megatron-LM argument parsing: the line is read as Megatron's argparse reads it (megatron_argparse.h),
// then the arguments pipebench binds go through CLI11 for their values and rules.
#include "megatron/model_args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "cli/number_checks.h"
#include "core/checked_math.h"
#include "core/command_line.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "megatron/launch_line.h"
#include "megatron/layout.h"
#include "megatron/list_expression.h"
#include "megatron/megatron_argparse.h"
#include "megatron/megatron_argument_table.h"

namespace pipebench {
namespace {

// The arguments Megatron-LM's parser has (megatron_argument_table.h) and pipebench's own additions
// (model_args.h), which take one value each; the CLI11 options check their values.
std::vector<MegatronArgumentSpec> argument_table() {
  std::vector<MegatronArgumentSpec> table = megatron_argument_table();
  table.push_back({"--world-size", "", "int", ""});
  table.push_back({"--rank-order", "", "str", ""});
  table.push_back({"--megatron-version", "", "str", ""});
  return table;
}

// Megatron arguments that change the messages of an iteration but are not modelled: the plan is made
// without them and says so (a note naming the argument and what the plan lists instead).
const std::map<std::string, std::string>& not_modelled() {
  static const std::map<std::string, std::string> kWhy = {
      {"--pipeline-model-parallel-layout", "a custom pipeline layout; the plan splits the layers evenly"},
      {"--mtp-num-layers", "multi-token prediction layers on the last stage are not planned"},
      {"--use-torch-fsdp2", "FSDP shards parameters and gathers them per layer; the plan is of DDP"},
      {"--use-megatron-fsdp", "FSDP shards parameters and gathers them per layer; the plan is of DDP"},
      {"--moe-expert-capacity-factor", "token dropping caps the all-to-all at capacity; the plan is balanced"},
      {"--moe-pad-expert-input-to-capacity", "padding to capacity fixes the all-to-all size; the plan is balanced"},
      {"--overlap-moe-expert-parallel-comm", "the all-to-all overlaps another microbatch's compute; sizes as planned"},
  };
  return kWhy;
}

std::int64_t count_vocab(const std::string& path) {
  // Read as a regular file only: a FIFO or device named here would block or never end.
  const std::string text = read_input_file("--vocab-file", path);
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || j.empty()) throw UsageError("--vocab-file " + path + ": not a JSON vocabulary (token -> id)");
    return static_cast<std::int64_t>(j.size());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("--vocab-file " + path + ": not a JSON vocabulary (" + json_error_text(e) + ")");
  }
}

std::string str(std::int64_t v) { return std::to_string(v); }

// TransformerConfig.__post_init__: a custom layout excludes the other pipeline split arguments.
void check_split_arguments(const MegatronArgs& a) {
  if (has_argument(a.notes, "--pipeline-model-parallel-layout") &&
      (a.first_stage_layers > 0 || a.last_stage_layers > 0 || a.account_for_embedding || a.account_for_loss))
    throw UsageError(
        "--pipeline-model-parallel-layout cannot be set with --decoder-first-pipeline-num-layers, "
        "--decoder-last-pipeline-num-layers, --account-for-embedding-in-pipeline-split or "
        "--account-for-loss-in-pipeline-split");
}

// arguments.py: --fp8-param-gather only with the distributed optimizer (FSDP is not planned), and
// TransformerConfig: fp8_param (which --fp8-param-gather sets) only in FP8 mode (--fp8-format). The FP8
// format is not bound (it changes no message), so it is looked for among the ignored arguments.
void check_fp8_param_gather(const MegatronArgs& a) {
  if (!a.fp8_param_gather) return;
  if (!a.distributed_optimizer && !has_argument(a.notes, "--use-torch-fsdp2") &&
      !has_argument(a.notes, "--use-megatron-fsdp"))
    throw UsageError(
        "--fp8-param-gather needs --use-distributed-optimizer (Megatron: only supported with the "
        "distributed optimizer or FSDP)");
  if (!has_argument(a.ignored, "--fp8-format"))
    throw UsageError("--fp8-param-gather needs --fp8-format (Megatron: fp8_param must be used with fp8 mode)");
}

// Megatron's rules on the recompute, context-parallel and optimizer arguments (TransformerConfig
// __post_init__, arguments.py validate_args), each message naming the rule.
void check_rules(const MegatronArgs& a, const std::string& cp_fusion_impl) {
  if (a.recompute_granularity == "full") {
    if (a.recompute_method.empty())
      throw UsageError("Megatron arguments: --recompute-granularity full needs --recompute-method block or uniform");
    if (a.recompute_num_layers <= 0)
      throw UsageError(
          "Megatron arguments: --recompute-granularity full needs --recompute-num-layers (between 1 and the layers "
          "per pipeline rank)");
  } else if (a.recompute_granularity == "selective") {
    if (!a.recompute_method.empty() || a.recompute_num_layers > 0)
      throw UsageError(
          "Megatron arguments: --recompute-granularity selective takes no --recompute-method or "
          "--recompute-num-layers");
  }
  for (const auto& t : a.cp_comm_type) {
    if (t != "p2p" && t != "a2a" && t != "allgather" && t != "a2a+p2p")
      throw UsageError("--cp-comm-type " + t + ": not one of p2p, a2a, allgather, a2a+p2p");
  }
  if (a.cp_comm_type.size() != 1 && a.cp_comm_type.size() != static_cast<std::size_t>(a.num_layers))
    throw UsageError("--cp-comm-type: " + str(static_cast<std::int64_t>(a.cp_comm_type.size())) +
                     " values; give one for all layers or one per layer (" + str(a.num_layers) + ")");
  const bool hierarchical = std::find(a.cp_comm_type.begin(), a.cp_comm_type.end(), "a2a+p2p") != a.cp_comm_type.end();
  if (hierarchical && a.hierarchical_cp_sizes.size() != 2)
    throw UsageError("--hierarchical-context-parallel-sizes must be set (a2a size, p2p size) when a2a+p2p is used");
  if (!a.hierarchical_cp_sizes.empty()) {
    std::int64_t product = 1;
    for (int n : a.hierarchical_cp_sizes) product *= n;
    if (product != a.cp)
      throw UsageError("--hierarchical-context-parallel-sizes: the product (" + str(product) +
                       ") must equal --context-parallel-size (" + str(a.cp) + ")");
  }
  if (a.cross_entropy_loss_fusion && cp_fusion_impl == "te")
    throw UsageError(
        "--cross-entropy-fusion-impl te: Transformer Engine cross entropy loss fusion is disabled by Megatron; use "
        "native or omit --cross-entropy-loss-fusion");
  if (a.distributed_optimizer_instances > 1 && !a.distributed_optimizer)
    throw UsageError("--num-distributed-optimizer-instances > 1 needs --use-distributed-optimizer");
  if (a.overlap_param_gather && !(a.distributed_optimizer && a.overlap_grad_reduce))
    throw UsageError("--overlap-param-gather needs --use-distributed-optimizer and --overlap-grad-reduce");
  check_fp8_param_gather(a);
  check_split_arguments(a);
}

// The sizes plan and predict can walk (layout.h limits) and Megatron's head rule (arguments.py: without
// --kv-channels, hidden_size % num_attention_heads == 0). Byte counts are checked where they are computed.
void check_model_sizes(const MegatronArgs& a) {
  if (a.num_layers > kMaxLayers) {
    throw UsageError("Megatron arguments: --num-layers " + std::to_string(a.num_layers) + " is above the limit of " +
                     std::to_string(kMaxLayers));
  }
  if (!has_argument(a.ignored, "--kv-channels") && a.hidden % a.heads != 0) {
    throw UsageError("hidden size (" + std::to_string(a.hidden) + ") must be divisible by number of attention heads (" +
                     std::to_string(a.heads) + ")");
  }
}

// An option whose value must be a positive integer that fits its field (int or std::int64_t).
template <typename T>
void add_positive(CLI::App& app, const char* name, T& field) {
  app.add_option(name, field)->check(checks::positive(std::is_same_v<T, int> ? checks::kMaxInt32 : checks::kMaxInt64));
}

// The MoE arguments as given, before the rules turn them into MegatronArgs fields.
struct MoeOptions {
  std::string layer_freq = "1", router_dtype, score_function = "softmax";
  std::vector<std::string> load_balancing = {"aux_loss"};
  std::vector<double> aux_loss_coeff = {0.0};
  bool pre_softmax = false;
};

void add_moe_options(CLI::App& app, MegatronArgs& a, MoeOptions& o) {
  // arguments.py _add_moe_args and the TransformerConfig / ModelParallelConfig fields it exposes.
  app.add_option("--num-experts", a.num_experts)->check(checks::non_negative(checks::kMaxInt32));
  add_positive(app, "--expert-model-parallel-size", a.ep);
  add_positive(app, "--expert-tensor-parallel-size", a.etp);
  add_positive(app, "--moe-router-topk", a.moe_router_topk);
  app.add_option("--moe-token-dispatcher-type", a.moe_dispatcher);
  app.add_option("--moe-layer-freq", o.layer_freq);
  add_positive(app, "--moe-ffn-hidden-size", a.moe_ffn_hidden);
  add_positive(app, "--moe-shared-expert-intermediate-size", a.moe_shared_expert_ffn);
  app.add_option("--moe-router-dtype", o.router_dtype)->check(CLI::IsMember({"fp32", "fp64"}));
  app.add_option("--moe-router-score-function", o.score_function)
      ->check(CLI::IsMember({"softmax", "sigmoid", "sqrtsoftplus"}));
  app.add_option("--moe-router-load-balancing-type", o.load_balancing)->expected(1, -1);
  app.add_option("--moe-aux-loss-coeff", o.aux_loss_coeff)->expected(1, -1)->check(checks::non_negative(1e6));
  app.add_flag("--moe-router-pre-softmax", o.pre_softmax);
}

// --moe-layer-freq: an integer N (layer i is MoE when i % N == 0) or the list form "[1,0,1,...]", one
// entry per layer (gpt_layer_specs.py get_gpt_decoder_block_spec), or a Python expression of such lists
// ("([0]*3+[1]*58)", which Megatron eval()s; read here by list_expression.h).
std::vector<int> moe_layer_pattern(const std::string& freq, int layers) {
  const std::string what = "--moe-layer-freq " + freq;
  std::vector<int> pattern;
  if (freq.find('[') == std::string::npos) {
    std::int64_t n = 0;
    std::size_t used = 0;
    try {
      n = std::stoll(freq, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != freq.size() || n < 1 || n > checks::kMaxInt32)
      throw UsageError(what + ": not a positive integer or a list of 0 and 1 such as [1,0,1,0]");
    for (int i = 0; i < layers; ++i) pattern.push_back(i % n == 0 ? 1 : 0);
    return pattern;
  }
  for (long long e : eval_list_expression("--moe-layer-freq", freq, static_cast<std::size_t>(kMaxLayers))) {
    if (e != 0 && e != 1) throw UsageError(what + ": has an entry that is not 0 or 1 (Invalid layer pattern)");
    pattern.push_back(static_cast<int>(e));
  }
  if (pattern.size() != static_cast<std::size_t>(layers))
    throw UsageError("--moe-layer-freq: Invalid length of moe_layer_pattern: " +
                     str(static_cast<std::int64_t>(pattern.size())) + ", expected " + str(layers) + " (--num-layers)");
  return pattern;
}

// Megatron's MoE rules (arguments.py validate_args, TransformerConfig.__post_init__, moe_layer.py), each
// message naming the rule, and the derived MoE fields.
void finish_moe(MegatronArgs& a, const MoeOptions& o) {
  if (a.moe_dispatcher == "alltoall_seq")
    throw UsageError(
        "--moe-token-dispatcher-type alltoall_seq: removed from Megatron-LM main; use alltoall (the same "
        "all-to-all volume)");
  if (a.moe_dispatcher == "flex")
    throw UsageError(
        "--moe-token-dispatcher-type flex: DeepEP/HybridEP fused dispatch is not modelled; use alltoall for the "
        "expected all-to-all volume");
  if (a.moe_dispatcher != "allgather" && a.moe_dispatcher != "alltoall")
    throw UsageError("--moe-token-dispatcher-type " + a.moe_dispatcher + ": not one of allgather, alltoall");
  if (a.ep > 1 && a.num_experts == 0)
    throw UsageError("num_experts must be non None to use expert model parallelism (--expert-model-parallel-size " +
                     str(a.ep) + " without --num-experts)");
  if (a.num_experts == 0) {  // arguments.py: 0 means no MoE
    const bool mixed = a.moe_ffn_hidden > 0 && [&] {
      const std::vector<int> pattern = moe_layer_pattern(o.layer_freq, a.num_layers);
      return std::find(pattern.begin(), pattern.end(), 0) != pattern.end();
    }();
    if (a.moe_ffn_hidden > 0 && !mixed)
      throw UsageError(
          "moe_ffn_hidden_size is set but num_moe_experts is None. Please set num_moe_experts or remove "
          "moe_ffn_hidden_size.");
    a.moe_ffn_hidden = 0;
    return;
  }
  if (a.num_experts > kMaxExperts) {
    throw UsageError("Megatron arguments: --num-experts " + str(a.num_experts) + " is above the limit of " +
                     str(kMaxExperts));
  }
  if (a.num_experts % a.ep != 0)
    throw UsageError("Number of experts should be a multiple of expert model parallel_size (--num-experts " +
                     str(a.num_experts) + ", --expert-model-parallel-size " + str(a.ep) + ")");
  if (a.moe_router_topk > a.num_experts)
    throw UsageError("--moe-router-topk " + str(a.moe_router_topk) + " is above --num-experts " + str(a.num_experts) +
                     " (torch.topk over the experts)");
  const bool sinkhorn =
      std::find(o.load_balancing.begin(), o.load_balancing.end(), "sinkhorn") != o.load_balancing.end();
  if (a.moe_router_topk == 1 && o.score_function == "softmax" && !o.pre_softmax && !sinkhorn)
    throw UsageError("Please use --moe-router-pre-softmax when topk is 1.");
  if (a.tp > 1 && !a.sequence_parallel)
    throw UsageError(
        "During training, performance may degrade if MoE and tensor parallelism are enabled without also enabling "
        "sequence parallelism (--num-experts with --tensor-model-parallel-size > 1 needs --sequence-parallel)");
  if (a.moe_ffn_hidden == 0) a.moe_ffn_hidden = a.ffn_hidden;  // TransformerConfig.__post_init__
  a.moe_layer_pattern = moe_layer_pattern(o.layer_freq, a.num_layers);
  // router.py gating: logits (and so probs) in the input's dtype unless --moe-router-dtype.
  a.moe_probs_dtype = o.router_dtype == "fp32"   ? DType::kFloat
                      : o.router_dtype == "fp64" ? DType::kDouble
                                                 : a.params_dtype;
  for (std::size_t i = 0; i < o.load_balancing.size(); ++i) {
    const double coeff = o.aux_loss_coeff.size() == 1  ? o.aux_loss_coeff[0]
                         : i < o.aux_loss_coeff.size() ? o.aux_loss_coeff[i]
                                                       : 0.0;
    if (o.load_balancing[i] == "aux_loss" && coeff > 0) a.moe_aux_loss = true;
  }
}

// The arguments as typed that are turned into MegatronArgs fields after parsing.
struct RawArgs {
  bool fp16 = false, bf16 = false, no_overlap = false, no_mask = false, recompute_activations = false;
  std::string vocab_file, merge_file, tokenizer, tokenizer_model, version = "main", pos_type = "learned_absolute",
                                                                  norm = "LayerNorm";
  std::string impl = "transformer_engine", ce_impl = "native";
};

void add_model_options(CLI::App& app, MegatronArgs& a, RawArgs& r) {
  add_positive(app, "--num-layers", a.num_layers);
  add_positive(app, "--hidden-size", a.hidden);
  add_positive(app, "--ffn-hidden-size", a.ffn_hidden);
  add_positive(app, "--num-attention-heads", a.heads);
  add_positive(app, "--num-query-groups", a.query_groups);
  app.add_flag("--group-query-attention", a.gqa);
  app.add_flag("--swiglu", a.swiglu);
  app.add_flag("--untie-embeddings-and-output-weights", a.untie_embeddings);
  app.add_flag("--disable-bias-linear", a.disable_bias_linear);
  app.add_option("--normalization", r.norm);
  app.add_option("--position-embedding-type", r.pos_type);
  add_positive(app, "--seq-length", a.seq_length);
  add_positive(app, "--max-position-embeddings", a.max_position_embeddings);
  add_positive(app, "--vocab-size", a.vocab_size);
  app.add_option("--vocab-file", r.vocab_file);
  app.add_option("--tokenizer-type", r.tokenizer);
  app.add_option("--tokenizer-model", r.tokenizer_model);
  app.add_option("--merge-file", r.merge_file);
  add_positive(app, "--make-vocab-size-divisible-by", a.make_vocab_divisible_by);
}

void add_parallel_options(CLI::App& app, MegatronArgs& a) {
  add_positive(app, "--tensor-model-parallel-size", a.tp);
  add_positive(app, "--pipeline-model-parallel-size", a.pp);
  add_positive(app, "--context-parallel-size", a.cp);
  add_positive(app, "--num-layers-per-virtual-pipeline-stage", a.layers_per_virtual_stage);
  add_positive(app, "--num-virtual-stages-per-pipeline-rank", a.virtual_stages_per_rank);
  add_positive(app, "--decoder-first-pipeline-num-layers", a.first_stage_layers);
  add_positive(app, "--decoder-last-pipeline-num-layers", a.last_stage_layers);
  app.add_flag("--account-for-embedding-in-pipeline-split", a.account_for_embedding);
  app.add_flag("--account-for-loss-in-pipeline-split", a.account_for_loss);
  app.add_flag("--sequence-parallel", a.sequence_parallel);
  add_positive(app, "--world-size", a.world_size);
  app.add_option("--rank-order", a.rank_order)->check(CLI::IsMember({"tp-cp-ep-dp-pp", "tp-pp-dp"}));
  add_positive(app, "--micro-batch-size", a.micro_batch);
  add_positive(app, "--global-batch-size", a.global_batch);
  add_positive(app, "--microbatch-group-size-per-virtual-pipeline-stage", a.microbatch_group_size);
}

void add_training_options(CLI::App& app, MegatronArgs& a, RawArgs& r) {
  app.add_flag("--fp16", r.fp16);
  app.add_flag("--bf16", r.bf16);
  app.add_flag("--accumulate-allreduce-grads-in-fp32", a.accumulate_allreduce_grads_in_fp32);
  app.add_flag("--grad-reduce-in-bf16", a.grad_reduce_in_bf16);
  app.add_flag("--use-distributed-optimizer", a.distributed_optimizer);
  app.add_flag("--overlap-grad-reduce", a.overlap_grad_reduce);
  add_positive(app, "--ddp-bucket-size", a.ddp_bucket_size);
  app.add_flag("--no-overlap-p2p-communication", r.no_overlap);
  app.add_option("--ddp-num-buckets", a.ddp_num_buckets)->check(CLI::PositiveNumber);
  app.add_flag("--ddp-pad-buckets-for-high-nccl-busbw", a.ddp_pad_buckets_for_high_nccl_busbw);
  app.add_flag("--overlap-param-gather", a.overlap_param_gather);
  app.add_flag("--fp8-param-gather", a.fp8_param_gather);
  app.add_option("--num-distributed-optimizer-instances", a.distributed_optimizer_instances)
      ->check(CLI::PositiveNumber);
  app.add_option("--cp-comm-type", a.cp_comm_type)->expected(1, -1);
  app.add_option("--hierarchical-context-parallel-sizes", a.hierarchical_cp_sizes)
      ->expected(1, -1)
      ->check(CLI::PositiveNumber);
  app.add_option("--recompute-granularity", a.recompute_granularity)->check(CLI::IsMember({"full", "selective"}));
  app.add_option("--recompute-method", a.recompute_method)->check(CLI::IsMember({"uniform", "block"}));
  app.add_option("--recompute-num-layers", a.recompute_num_layers)->check(CLI::PositiveNumber);
  app.add_flag("--recompute-activations", r.recompute_activations);
  app.add_option("--transformer-impl", r.impl)->check(CLI::IsMember({"transformer_engine", "local"}));
  app.add_flag("--qk-layernorm", a.qk_layernorm);
  app.add_flag("--no-create-attention-mask-in-dataloader", r.no_mask);
  app.add_flag("--cross-entropy-loss-fusion", a.cross_entropy_loss_fusion);
  app.add_option("--cross-entropy-fusion-impl", r.ce_impl)->check(CLI::IsMember({"native", "te"}));
  app.add_flag("--calculate-per-token-loss", a.calculate_per_token_loss);
  app.add_flag("--tp-comm-overlap", a.tp_comm_overlap);
  app.add_flag("--defer-embedding-wgrad-compute", a.defer_embedding_wgrad);
  app.add_option("--megatron-version", r.version)->check(CLI::IsMember({"main", "core_v0.9"}));
}

// Extras: an argument Megatron-LM accepts (its parser took it: megatron_argparse.h) that pipebench does
// not bind has no effect on communication and is listed as ignored, or changes it and gets a note
// (not_modelled). The lists are written to plans and warnings, so credentials in them are redacted like
// the command line's.
void sort_extras(const std::vector<MegatronArgument>& extras, MegatronArgs& a) {
  for (const auto& extra : extras) {
    std::vector<std::string> words{extra.option};
    words.insert(words.end(), extra.values.begin(), extra.values.end());
    if (const auto why = not_modelled().find(extra.option); why != not_modelled().end())
      a.notes.push_back(redacted_arguments(words) + " is not modelled: " + why->second);
    else
      a.ignored.push_back(redacted_arguments(words));
  }
}

// The words CLI11 parses: each argument pipebench binds, once (its last occurrence), "--x=value" for one
// value so a value such as "-1" or "--y" (from "--x=--y") stays a value. The others are extras.
std::vector<std::string> bound_words(const CLI::App& app, const std::vector<MegatronArgument>& given,
                                     std::vector<MegatronArgument>& extras) {
  std::vector<std::string> words;
  for (const auto& g : given) {
    if (app.get_option_no_throw(g.option) == nullptr) {
      extras.push_back(g);
    } else if (g.values.size() == 1) {
      words.push_back(g.option + "=" + g.values.front());
    } else {
      words.push_back(g.option);
      words.insert(words.end(), g.values.begin(), g.values.end());
    }
  }
  return words;
}

// Where the tokenizer cannot be read on this machine: the usual vocabulary of a tokenizer type that has
// one, said so in vocab_source; any other type asks for --vocab-size. Sizes: GPT-2's BPE vocab.json
// (Radford et al. 2019) holds 50257 tokens; Llama 2's SentencePiece model 32000 (Touvron et al. 2023);
// BERT's WordPiece vocabularies 30522 (uncased) and 28996 (cased) (Devlin et al. 2019). Without a type,
// a --vocab-file with --merge-file is GPT-2's BPE (Megatron's GPT example scripts).
void usual_vocabulary(const RawArgs& r, MegatronArgs& a) {
  static const std::map<std::string, std::int64_t> kUsual = {{"GPT2BPETokenizer", 50257},
                                                             {"Llama2Tokenizer", 32000},
                                                             {"BertWordPieceLowerCase", 30522},
                                                             {"BertWordPieceCase", 28996}};
  std::string type = r.tokenizer;
  if (type.empty() && !r.vocab_file.empty() && !r.merge_file.empty()) type = "GPT2BPETokenizer";
  const auto usual = kUsual.find(type);
  if (usual != kUsual.end()) {
    a.vocab_size = usual->second;
    a.vocab_source = type + "'s usual vocabulary" +
                     (r.vocab_file.empty() && r.tokenizer_model.empty()
                          ? ""
                          : " (" + (r.vocab_file.empty() ? r.tokenizer_model : r.vocab_file) + " is not read here)") +
                     "; --vocab-size N says otherwise";
    return;
  }
  if (!type.empty())
    throw UsageError("--tokenizer-type " + type + ": its vocabulary size depends on the tokenizer model" +
                     (r.tokenizer_model.empty() ? std::string() : " (" + r.tokenizer_model + ")") +
                     ", which is not read here; give --vocab-size N");
  if (!r.vocab_file.empty())
    throw UsageError("--vocab-file " + r.vocab_file + ": no such file (or give --vocab-size N)");
}

// The fields that follow from the typed arguments (arguments.py's derivations).
void derive_from_raw(const RawArgs& r, MegatronArgs& a) {
  if (r.fp16 && r.bf16) throw UsageError("Megatron arguments: --fp16 and --bf16 cannot both be set");
  a.params_dtype = r.fp16 ? DType::kHalf : r.bf16 ? DType::kBfloat16 : DType::kFloat;
  a.overlap_p2p = !r.no_overlap;
  a.rope = r.pos_type == "rope";
  a.rmsnorm = r.norm == "RMSNorm";
  a.transformer_engine = r.impl == "transformer_engine";
  a.create_attention_mask = !r.no_mask;
  if (r.recompute_activations) a.recompute_granularity = "selective";  // arguments.py
  a.version = r.version == "core_v0.9" ? MegatronVersion::kCoreV09 : MegatronVersion::kMain;
  if (!a.gqa) a.query_groups = 0;
  if (a.vocab_size > 0) {
    a.vocab_source = "--vocab-size";
  } else if (!r.vocab_file.empty() && std::filesystem::exists(r.vocab_file)) {
    a.vocab_size = count_vocab(r.vocab_file);
    a.vocab_source = "tokens in " + r.vocab_file + (r.tokenizer.empty() ? "" : " (" + r.tokenizer + ")");
  } else {
    usual_vocabulary(r, a);
  }
}

// torchrun's world (--nproc_per_node x --nnodes) is the plan's unless --world-size says the same or not.
void take_launcher_world(const LaunchLine& line, MegatronArgs& a) {
  if (line.world_size == 0) return;
  if (a.world_size != 0 && a.world_size != line.world_size)
    throw UsageError("--world-size " + str(a.world_size) + " differs from the launcher's world " +
                     str(line.world_size) + " (" + line.launcher + ")");
  a.world_size = line.world_size;
  a.notes.push_back("world " + str(line.world_size) + " from the launcher (" + line.launcher + ")");
}

void require_arguments(const MegatronArgs& a) {
  std::string missing;
  auto need = [&](bool ok, const char* name) {
    if (!ok) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need(a.num_layers > 0, "--num-layers");
  need(a.hidden > 0, "--hidden-size");
  need(a.heads > 0, "--num-attention-heads");
  need(a.max_position_embeddings > 0, "--max-position-embeddings");
  need(a.seq_length > 0, "--seq-length");
  need(a.micro_batch > 0, "--micro-batch-size");
  need(a.global_batch > 0, "--global-batch-size");
  need(a.vocab_size > 0, "--vocab-size or --vocab-file");
  if (!missing.empty()) throw UsageError("Megatron arguments: missing " + missing);
}

void default_ffn_hidden(MegatronArgs& a) {
  // Megatron's defaults (arguments.py): 4h, or with --swiglu 2/3 of that rounded down to a multiple of 64.
  if (a.ffn_hidden == 0) {
    const std::int64_t ffn = a.swiglu ? static_cast<std::int64_t>((4.0 * a.hidden * 2 / 3) / 64) * 64 : 4LL * a.hidden;
    if (ffn > std::numeric_limits<int>::max())
      throw UsageError("Megatron arguments: --hidden-size " + std::to_string(a.hidden) +
                       " gives an FFN size beyond 32 bits");
    a.ffn_hidden = static_cast<int>(ffn);
  }
}

}  // namespace

MegatronArgs parse_megatron_args(const std::vector<std::string>& words) {
  const LaunchLine line = split_launch_line(words);
  const std::vector<std::string>& args = line.megatron_args;
  MegatronArgs a;
  RawArgs r;
  CLI::App app{"Megatron-LM arguments", "pipebench plan --"};
  app.set_help_flag();
  add_model_options(app, a, r);
  add_parallel_options(app, a);
  add_training_options(app, a, r);
  MoeOptions moe;
  add_moe_options(app, a, moe);
  std::vector<MegatronArgument> extras;
  const std::vector<std::string> once = bound_words(app, parse_megatron_argv(args, argument_table()), extras);
  checks::require_finite_numbers(app);
  checks::require_decimal_integers(app);
  std::vector<std::string> reversed(once.rbegin(), once.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(std::string("Megatron arguments: ") + e.what());
  }
  sort_extras(extras, a);
  take_launcher_world(line, a);
  derive_from_raw(r, a);
  require_arguments(a);
  check_model_sizes(a);
  default_ffn_hidden(a);
  if (a.max_position_embeddings < a.seq_length)
    throw UsageError("max_position_embeddings (" + str(a.max_position_embeddings) +
                     ") must be greater than or equal to seq_length (" + str(a.seq_length) + ")");
  check_rules(a, r.ce_impl);
  finish_moe(a, moe);
  return a;
}

DType grad_dtype(const MegatronArgs& a) {
  if (a.accumulate_allreduce_grads_in_fp32) return DType::kFloat;
  if (a.params_dtype == DType::kBfloat16 && !a.grad_reduce_in_bf16) return DType::kFloat;  // forced for bf16 (§4)
  return a.params_dtype;
}

const std::string& cp_comm_type_of(const MegatronArgs& a, int layer) {
  return a.cp_comm_type.size() == 1 ? a.cp_comm_type.front() : a.cp_comm_type.at(static_cast<std::size_t>(layer));
}

bool is_moe_layer(const MegatronArgs& a, int layer) {
  return !a.moe_layer_pattern.empty() && a.moe_layer_pattern.at(static_cast<std::size_t>(layer)) == 1;
}

bool has_argument(const std::vector<std::string>& words, const std::string& name) {
  return std::any_of(words.begin(), words.end(), [&name](const std::string& w) { return w.rfind(name, 0) == 0; });
}

int expert_tp(const MegatronArgs& a) { return a.etp > 0 ? a.etp : a.tp; }

std::int64_t padded_vocab(const MegatronArgs& a) {
  const std::int64_t multiple = static_cast<std::int64_t>(a.make_vocab_divisible_by) * a.tp;
  const std::string what = "Megatron arguments: the padded vocabulary size";
  return checked_mul(checked_add(a.vocab_size, multiple - 1, what) / multiple, multiple, what);
}

}  // namespace pipebench
