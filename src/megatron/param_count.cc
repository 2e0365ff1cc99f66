// SPDX-License-Identifier: Apache-2.0
// GPT parameter counts (megatron.core GPTModel; the TE and local specs give the same counts).
#include "megatron/param_count.h"

#include "core/checked_math.h"
#include "megatron/layer_comm.h"

namespace pipebench {
namespace {

const char* const kWhat = "Megatron arguments: the parameter count (hidden, FFN, vocabulary, layers)";

// The MLP of an MoE layer (layer_tensors).
void add_moe_mlp(const MegatronArgs& a, std::vector<ParamTensor>& v) {
  const std::int64_t h = a.hidden, f = a.moe_ffn_hidden, etp = expert_tp(a), local = a.num_experts / a.ep;
  const bool bias = !a.disable_bias_linear;
  const std::int64_t fc1_out = a.swiglu ? 2 * f : f;
  const bool fp8 = a.fp8_param_gather && a.transformer_engine;
  auto add = [&](const std::string& name, std::int64_t n, bool replicated, bool expert) {
    const bool te_weight = name.find("linear_fc") != std::string::npos && name.find(".weight") != std::string::npos;
    if (n > 0) v.push_back({name, n, false, false, replicated, false, expert, fp8 && te_weight});
  };
  add("pre_mlp_layernorm.weight", h, true, false);
  add("pre_mlp_layernorm.bias", a.rmsnorm ? 0 : h, true, false);
  add("mlp.router.weight", checked_mul(a.num_experts, h, kWhat), true, false);
  add("mlp.router.bias", bias ? a.num_experts : 0, true, false);
  for (const char* fc : {"fc1", "fc2"}) {
    const bool one = fc == std::string("fc1");
    for (std::int64_t e = 0; e < local; ++e)
      add(std::string("mlp.experts.linear_") + fc + ".weight" + std::to_string(e),
          checked_mul(h, one ? fc1_out : f, kWhat) / etp, false, true);
    for (std::int64_t e = 0; e < local && bias; ++e)
      add(std::string("mlp.experts.linear_") + fc + ".bias" + std::to_string(e), one ? fc1_out / etp : h, false, true);
  }
  const std::int64_t fs = a.moe_shared_expert_ffn, fs1 = a.swiglu ? 2 * fs : fs;
  if (fs > 0) {
    add("mlp.shared_experts.linear_fc1.weight", checked_mul(h, fs1, kWhat) / a.tp, false, false);
    add("mlp.shared_experts.linear_fc1.bias", bias ? fs1 / a.tp : 0, false, false);
    add("mlp.shared_experts.linear_fc2.weight", checked_mul(fs, h, kWhat) / a.tp, false, false);
    add("mlp.shared_experts.linear_fc2.bias", bias ? h : 0, true, false);
  }
}

}  // namespace

std::vector<ParamTensor> layer_tensors(const MegatronArgs& a, bool moe) {
  const std::int64_t h = a.hidden, f = a.ffn_hidden, t = a.tp;
  const std::int64_t head_dim = h / a.heads;
  const std::int64_t groups = a.gqa && a.query_groups ? a.query_groups : a.heads;
  const std::int64_t qkv_out = h + 2 * groups * head_dim;  // 3h for MHA
  const bool bias = !a.disable_bias_linear;
  const std::int64_t fc1_out = a.swiglu ? 2 * f : f;
  const std::int64_t norm_bias = a.rmsnorm ? 0 : 1;
  std::vector<ParamTensor> v;
  auto add = [&](const std::string& name, std::int64_t n, bool replicated = false, bool qk = false) {
    if (n > 0) v.push_back({name, n, false, false, replicated, qk});
  };
  // The TE linear weights (ParamTensor::fp8); the local spec has no TE modules and so no FP8 params.
  const bool fp8 = a.fp8_param_gather && a.transformer_engine;
  auto add_weight = [&](const std::string& name, std::int64_t n) {
    if (n <= 0) return;
    add(name, n);
    v.back().fp8 = fp8;
  };
  // TE spec: "self_attention.linear_qkv.layer_norm_weight"; local spec: "input_layernorm.weight".
  auto norm = [&](const std::string& te_module, const std::string& local_module) {
    const std::string prefix = a.transformer_engine ? te_module + ".layer_norm_" : local_module + ".";
    add(prefix + "weight", h, true);
    add(prefix + "bias", norm_bias * h, true);
  };
  if (!a.transformer_engine) norm("", "input_layernorm");
  add_weight("self_attention.linear_proj.weight", checked_mul(h, h, kWhat) / t);
  add("self_attention.linear_proj.bias", bias ? h : 0, true);  // row-parallel bias: replicated
  if (a.transformer_engine) norm("self_attention.linear_qkv", "");
  add_weight("self_attention.linear_qkv.weight", checked_mul(h, qkv_out, kWhat) / t);
  add("self_attention.linear_qkv.bias", bias ? qkv_out / t : 0);
  if (a.qk_layernorm) {
    for (const char* n : {"self_attention.q_layernorm", "self_attention.k_layernorm"}) {
      add(std::string(n) + ".weight", head_dim, false, true);
      add(std::string(n) + ".bias", norm_bias * head_dim, false, true);
    }
  }
  if (moe) {
    add_moe_mlp(a, v);
    return v;
  }
  norm("mlp.linear_fc1", "pre_mlp_layernorm");
  add_weight("mlp.linear_fc1.weight", checked_mul(h, fc1_out, kWhat) / t);
  add("mlp.linear_fc1.bias", bias ? fc1_out / t : 0);
  add_weight("mlp.linear_fc2.weight", checked_mul(f, h, kWhat) / t);
  add("mlp.linear_fc2.bias", bias ? h : 0, true);
  return v;
}

std::vector<ParamTensor> chunk_tensors(const MegatronArgs& a, const Layout& l, int r, int c, int v) {
  std::vector<ParamTensor> out;
  const std::int64_t h = a.hidden, V = padded_vocab(a);
  const bool shared = !a.untie_embeddings && l.pp > 1;
  if (r == 0 && c == 0) {
    out.push_back({"embedding.word_embeddings.weight", checked_mul(V, h, kWhat) / a.tp, true, shared});
    if (!a.rope)
      out.push_back({"embedding.position_embeddings.weight", checked_mul(a.max_position_embeddings, h, kWhat)});
  }
  const auto dense = layer_tensors(a), moe = a.num_experts > 0 ? layer_tensors(a, true) : dense;
  for (int layer : chunk_layers(a, l, r, c, v)) {
    const auto& tensors = is_moe_layer(a, layer) ? moe : dense;
    out.insert(out.end(), tensors.begin(), tensors.end());
  }
  if (r == l.pp - 1 && c == v - 1) {
    out.push_back({"final_layernorm.weight", h, false, false, true});
    if (!a.rmsnorm) out.push_back({"final_layernorm.bias", h, false, false, true});
    // Tied: the last stage holds a copy of the word embedding as the output weight (when p > 1);
    // untied: its own output weight. With p == 1 and tied weights there is no second tensor.
    if (a.untie_embeddings || l.pp > 1)
      out.push_back({"output_layer.weight", checked_mul(V, h, kWhat) / a.tp, true, shared});
  }
  return out;
}

std::int64_t total_elements(const std::vector<ParamTensor>& tensors) {
  std::int64_t n = 0;
  for (const auto& t : tensors) n = checked_add(n, t.elements, kWhat);
  return n;
}

}  // namespace pipebench
