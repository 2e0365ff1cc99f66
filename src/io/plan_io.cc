// SPDX-License-Identifier: Apache-2.0
// pipebench.plan/1: Plan to JSON and back.
#include "io/plan_io.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_file.h"
#include "core/printf_string.h"
#include "core/version.h"
#include "io/json_fields.h"
#include "io/provenance_io.h"
#include "megatron/layout.h"
#include "megatron/pipeline_split.h"

namespace pipebench {

using nlohmann::json;

namespace {

constexpr const char* kMain = "main";
constexpr const char* kCoreV09 = "core_v0.9";

// Fields written only where set (a plan without them reads as before): the pipeline split
// (pipeline_split.h) and --fp8-param-gather.
void add_model_extras(const MegatronArgs& a, json& m) {
  if (a.first_stage_layers > 0) m["decoder_first_pipeline_num_layers"] = a.first_stage_layers;
  if (a.last_stage_layers > 0) m["decoder_last_pipeline_num_layers"] = a.last_stage_layers;
  if (a.account_for_embedding) m["account_for_embedding_in_pipeline_split"] = true;
  if (a.account_for_loss) m["account_for_loss_in_pipeline_split"] = true;
  if (a.fp8_param_gather) m["fp8_param_gather"] = true;
}

json model_to_json(const Plan& plan) {
  const MegatronArgs& a = plan.args;
  json m = {{"num_layers", a.num_layers},
            {"hidden_size", a.hidden},
            {"ffn_hidden_size", a.ffn_hidden},
            {"num_attention_heads", a.heads},
            {"num_query_groups", a.gqa ? json(a.query_groups) : json(nullptr)},
            {"swiglu", a.swiglu},
            {"seq_length", a.seq_length},
            {"max_position_embeddings", a.max_position_embeddings},
            {"vocab_size", a.vocab_size},
            {"padded_vocab_size", plan.padded_vocab_size},
            {"vocab_source", a.vocab_source},
            {"micro_batch_size", a.micro_batch},
            {"global_batch_size", a.global_batch},
            {"params_dtype", std::string(dtype_name(a.params_dtype))},
            {"grad_dtype", std::string(dtype_name(plan.grad_dtype))},
            {"sequence_parallel", a.sequence_parallel && a.tp > 1},
            {"distributed_optimizer", a.distributed_optimizer},
            {"overlap_grad_reduce", a.overlap_grad_reduce},
            {"overlap_p2p_communication", a.overlap_p2p},
            {"untie_embeddings_and_output_weights", a.untie_embeddings},
            {"megatron_version", a.version == MegatronVersion::kMain ? kMain : kCoreV09},
            {"cp_comm_type", a.cp_comm_type},
            {"hierarchical_context_parallel_sizes", a.hierarchical_cp_sizes},
            {"recompute_granularity", a.recompute_granularity},
            {"recompute_method", a.recompute_method},
            {"recompute_num_layers", a.recompute_num_layers},
            {"transformer_impl", a.transformer_engine ? "transformer_engine" : "local"},
            {"num_experts", a.num_experts},
            {"moe_router_topk", a.moe_router_topk},
            {"moe_token_dispatcher_type", a.moe_dispatcher},
            {"moe_ffn_hidden_size", a.moe_ffn_hidden},
            {"moe_shared_expert_intermediate_size", a.moe_shared_expert_ffn},
            {"moe_layer_pattern", a.moe_layer_pattern},
            {"moe_probs_dtype", std::string(dtype_name(a.moe_probs_dtype))},
            {"moe_aux_loss", a.moe_aux_loss},
            {"ignored_arguments", a.ignored},
            {"unknown_arguments", a.unknown}};
  add_model_extras(a, m);
  return m;
}

json message_to_json(const PlanMessage& m) {
  json j = {{"id", m.id},
            {"rank", m.rank},
            {"op", m.op.name()},
            {"group", m.group},
            {"peer", m.peer >= 0 ? json(m.peer) : json(nullptr)},
            {"elements", m.elements},
            {"dtype", std::string(dtype_name(m.dtype))},
            {"bytes", m.bytes},
            {"count", m.count},
            {"phase", phase_name(m.phase)},
            {"what", m.what}};
  // MoE messages sized at the balanced expectation (plan.h); absent on every other message.
  if (m.routing_dependent) j["routing_dependent"] = true;
  // A collective inside the schedule: its calls by pass (plan.h PassCalls), which place it in the simulation and
  // the replay.
  if (!m.op.is_p2p() && m.phase != Phase::kAfter)
    j["calls"] = {{"forward", m.passes.forward}, {"backward", m.passes.backward}, {"recompute", m.passes.recompute}};
  // Additive fields of pipebench.plan/1: absent in older plans (every message alone).
  if (m.batch >= 0) {
    j["batch"] = m.batch;
    j["call"] = m.call;
  }
  return j;
}

// with_layers: each chunk's transformer layers too (a plan with an uneven split; even, they are L / p / v).
json schedule_to_json(const Schedule& s, bool with_layers) {
  json msgs = json::array(), params = json::array();
  for (const auto& p : s.params) {
    params.push_back({{"pp_rank", p.pp_rank}, {"chunk", p.chunk}, {"params", p.params}});
    if (with_layers) params.back()["layers"] = p.layers;
  }
  for (const auto& m : s.messages) msgs.push_back(message_to_json(m));
  return {{"name", s.id.name}, {"v", s.id.v},     {"warmup", s.warmup}, {"bubble_ideal", s.bubble_ideal},
          {"params", params},  {"messages", msgs}};
}

json layout_to_json(const Layout& l) {
  json j = {{"world", l.world},
            {"tp", l.tp},
            {"cp", l.cp},
            {"dp", l.dp},
            {"pp", l.pp},
            {"vp", l.vp},
            {"microbatches", l.microbatches},
            {"microbatch_group_size", l.microbatch_group},
            {"rank_order", l.rank_order}};
  if (l.moe) {
    j["ep"] = l.ep;
    j["expert_tp"] = l.etp;
    j["expert_dp"] = l.edp;
  }
  return j;
}

json groups_to_json(const Layout& l) {
  json g = {{"tp", l.tp_groups},
            {"cp", l.cp_groups},
            {"dp", l.dp_groups},
            {"pp", l.pp_groups},
            {"embedding", l.embedding_groups},
            {"model_parallel", l.model_parallel_groups}};
  if (l.moe) {
    g["ep"] = l.ep_groups;
    g["expert_tp"] = l.expert_tp_groups;
    g["tp_ep"] = l.tp_ep_groups;
    g["expert_dp"] = l.expert_dp_groups;
  }
  return g;
}

// ---- reading ----

DType dtype_field(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  const std::string name = f.get_string(parent, path, key);
  for (DType t : all_dtypes()) {
    if (dtype_name(t) == name) return t;
  }
  f.fail(JsonFields::join(path, key), "is not a dtype name (\"" + name + "\")");
}

Phase phase_field(const JsonFields& f, const json& parent, const std::string& path) {
  const std::string name = f.get_string(parent, path, "phase");
  for (Phase p : {Phase::kWarmup, Phase::kSteady, Phase::kCooldown, Phase::kPipeline, Phase::kAfter}) {
    if (name == phase_name(p)) return p;
  }
  f.fail(JsonFields::join(path, "phase"), "is not a phase (\"" + name + "\")");
}

// The MoE fields (absent in a plan of a dense model made before them).
void read_moe(const JsonFields& f, const json& m, const std::string& path, MegatronArgs& a) {
  if (!m.contains("num_experts")) return;
  a.num_experts = f.get_int(m, path, "num_experts");
  if (a.num_experts == 0) return;
  if (a.num_experts > kMaxExperts)
    f.fail(path + ".num_experts", "is above the limit of " + std::to_string(kMaxExperts));
  a.moe_router_topk = f.get_int(m, path, "moe_router_topk");
  a.moe_dispatcher = f.get_string(m, path, "moe_token_dispatcher_type");
  a.moe_ffn_hidden = f.get_int(m, path, "moe_ffn_hidden_size");
  a.moe_shared_expert_ffn = f.get_int(m, path, "moe_shared_expert_intermediate_size");
  a.moe_layer_pattern = f.get_ints(m, path, "moe_layer_pattern");
  a.moe_probs_dtype = dtype_field(f, m, path, "moe_probs_dtype");
  a.moe_aux_loss = f.get_bool(m, path, "moe_aux_loss");
  if (a.num_experts < 0 || a.moe_router_topk < 1 || a.moe_router_topk > a.num_experts)
    f.fail(path + ".moe_router_topk", "is not between 1 and num_experts");
  if (a.moe_ffn_hidden < 1 || a.moe_shared_expert_ffn < 0) f.fail(path + ".moe_ffn_hidden_size", "is below 1");
  if (a.moe_dispatcher != "alltoall" && a.moe_dispatcher != "allgather")
    f.fail(path + ".moe_token_dispatcher_type", "is not \"alltoall\" or \"allgather\"");
  if (a.moe_layer_pattern.size() != static_cast<std::size_t>(a.num_layers) ||
      std::any_of(a.moe_layer_pattern.begin(), a.moe_layer_pattern.end(), [](int x) { return x != 0 && x != 1; }))
    f.fail(path + ".moe_layer_pattern", "is not one 0 or 1 per layer");
}

// The pipeline split and --fp8-param-gather (add_model_extras): absent is Megatron's default.
void read_split(const JsonFields& f, const json& m, const std::string& path, MegatronArgs& a) {
  f.get_if(m, path, "decoder_first_pipeline_num_layers", a.first_stage_layers);
  f.get_if(m, path, "decoder_last_pipeline_num_layers", a.last_stage_layers);
  if (a.first_stage_layers < 0 || a.last_stage_layers < 0)
    f.fail(path + ".decoder_first_pipeline_num_layers", "is negative");
  f.get_if(m, path, "account_for_embedding_in_pipeline_split", a.account_for_embedding);
  f.get_if(m, path, "account_for_loss_in_pipeline_split", a.account_for_loss);
  f.get_if(m, path, "fp8_param_gather", a.fp8_param_gather);
}

// Fields added to pipebench.plan/1 after its first files: optional, with Megatron's defaults (an older
// plan has none of them and was made without context-parallel types or recompute).
void read_model_additions(const JsonFields& f, const json& m, const std::string& path, MegatronArgs& a) {
  if (m.contains("cp_comm_type")) {
    a.cp_comm_type = f.get_strings(m, path, "cp_comm_type");
    if (a.cp_comm_type.empty()) f.fail(path + ".cp_comm_type", "is empty");
    for (const auto& t : a.cp_comm_type) {
      if (t != "p2p" && t != "a2a" && t != "allgather" && t != "a2a+p2p")
        f.fail(path + ".cp_comm_type", "has \"" + t + "\", not one of p2p, a2a, allgather, a2a+p2p");
    }
  }
  f.get_if(m, path, "hierarchical_context_parallel_sizes", a.hierarchical_cp_sizes);
  f.get_if(m, path, "recompute_granularity", a.recompute_granularity);
  f.get_if(m, path, "recompute_method", a.recompute_method);
  f.get_if(m, path, "recompute_num_layers", a.recompute_num_layers);
  if (a.recompute_num_layers < 0) f.fail(path + ".recompute_num_layers", "is negative");
  read_moe(f, m, path, a);
  read_split(f, m, path, a);
  if (m.contains("transformer_impl")) {
    const std::string impl = f.get_string(m, path, "transformer_impl");
    if (impl != "transformer_engine" && impl != "local")
      f.fail(path + ".transformer_impl", "is not \"transformer_engine\" or \"local\"");
    a.transformer_engine = impl == "transformer_engine";
  }
}

// Sizes a plan's arithmetic (compute model, parameter counts, chunks) relies on: positive, and the
// layers within the limit plan and predict walk (megatron/layout.h).
void check_model(const JsonFields& f, const Plan& plan) {
  const MegatronArgs& a = plan.args;
  const std::pair<const char*, std::int64_t> sizes[] = {
      {"num_layers", a.num_layers},        {"hidden_size", a.hidden},
      {"ffn_hidden_size", a.ffn_hidden},   {"num_attention_heads", a.heads},
      {"seq_length", a.seq_length},        {"max_position_embeddings", a.max_position_embeddings},
      {"vocab_size", a.vocab_size},        {"padded_vocab_size", plan.padded_vocab_size},
      {"micro_batch_size", a.micro_batch}, {"global_batch_size", a.global_batch}};
  for (const auto& [key, value] : sizes) {
    if (value < 1) f.fail(std::string("model.") + key, "is below 1");
  }
  if (a.gqa && a.query_groups < 1) f.fail("model.num_query_groups", "is below 1");
  if (a.num_layers > kMaxLayers) f.fail("model.num_layers", "is above the limit of " + std::to_string(kMaxLayers));
}

// The model fields: MegatronArgs as far as the file records them, and the two derived values.
void read_model(const JsonFields& f, const json& j, Plan& plan) {
  const std::string path = "model";
  const json& m = f.object(j, "", path);
  MegatronArgs& a = plan.args;
  a.num_layers = f.get_int(m, path, "num_layers");
  a.hidden = f.get_int(m, path, "hidden_size");
  a.ffn_hidden = f.get_int(m, path, "ffn_hidden_size");
  a.heads = f.get_int(m, path, "num_attention_heads");
  a.gqa = !f.at(m, path, "num_query_groups").is_null();
  a.query_groups = a.gqa ? f.get_int(m, path, "num_query_groups") : 0;
  a.swiglu = f.get_bool(m, path, "swiglu");
  a.seq_length = f.get_i64(m, path, "seq_length");
  a.max_position_embeddings = f.get_i64(m, path, "max_position_embeddings");
  a.vocab_size = f.get_i64(m, path, "vocab_size");
  plan.padded_vocab_size = f.get_i64(m, path, "padded_vocab_size");
  a.vocab_source = f.get_string(m, path, "vocab_source");
  a.micro_batch = f.get_i64(m, path, "micro_batch_size");
  a.global_batch = f.get_i64(m, path, "global_batch_size");
  a.params_dtype = dtype_field(f, m, path, "params_dtype");
  plan.grad_dtype = dtype_field(f, m, path, "grad_dtype");
  a.sequence_parallel = f.get_bool(m, path, "sequence_parallel");
  a.distributed_optimizer = f.get_bool(m, path, "distributed_optimizer");
  a.overlap_grad_reduce = f.get_bool(m, path, "overlap_grad_reduce");
  a.overlap_p2p = f.get_bool(m, path, "overlap_p2p_communication");
  a.untie_embeddings = f.get_bool(m, path, "untie_embeddings_and_output_weights");
  const std::string version = f.get_string(m, path, "megatron_version");
  if (version != kMain && version != kCoreV09) f.fail(path + ".megatron_version", "is not \"main\" or \"core_v0.9\"");
  a.version = version == kMain ? MegatronVersion::kMain : MegatronVersion::kCoreV09;
  a.ignored = f.get_strings(m, path, "ignored_arguments");
  a.unknown = f.get_strings(m, path, "unknown_arguments");
  read_model_additions(f, m, path, a);
  check_model(f, plan);
}

// True when the sizes multiply to `world`; every size is >= 1, so a product past the world stops the
// loop before it can overflow.
bool product_is(std::initializer_list<int> sizes, int world) {
  std::int64_t product = 1;
  for (int size : sizes) {
    product *= size;
    if (product > world) return false;
  }
  return product == world;
}

// The expert grid (MoE plans): ep x expert tp x expert dp x pp must be the world.
void read_expert_layout(const JsonFields& f, const json& lj, Plan& plan) {
  Layout& l = plan.layout;
  l.moe = plan.args.num_experts > 0;
  if (!l.moe) return;
  l.ep = f.get_int(lj, "layout", "ep");
  l.etp = f.get_int(lj, "layout", "expert_tp");
  l.edp = f.get_int(lj, "layout", "expert_dp");
  if (l.ep < 1 || l.etp < 1 || l.edp < 1) f.fail("layout", "has an expert size below 1");
  if (!product_is({l.ep, l.etp, l.edp, l.pp}, l.world))
    f.fail("layout.world", "is not ep x expert_tp x expert_dp x pp");
  if (plan.args.num_experts % l.ep != 0) f.fail("layout.ep", "does not divide model.num_experts");
  plan.args.ep = l.ep;
  plan.args.etp = l.etp;
}

// Sizes from "layout"; the groups are rebuilt from them and must equal the file's "groups".
void read_layout(const JsonFields& f, const json& j, Plan& plan) {
  const json& lj = f.object(j, "", "layout");
  Layout& l = plan.layout;
  l.world = f.get_int(lj, "layout", "world");
  l.tp = f.get_int(lj, "layout", "tp");
  l.cp = f.get_int(lj, "layout", "cp");
  l.dp = f.get_int(lj, "layout", "dp");
  l.pp = f.get_int(lj, "layout", "pp");
  l.vp = f.get_int(lj, "layout", "vp");
  l.microbatches = f.get_i64(lj, "layout", "microbatches");
  l.microbatch_group = f.get_int(lj, "layout", "microbatch_group_size");
  l.rank_order = f.get_string(lj, "layout", "rank_order");
  for (int size : {l.tp, l.cp, l.dp, l.pp, l.vp, l.microbatch_group}) {
    if (size < 1) f.fail("layout", "has a size below 1");
  }
  if (l.microbatches < 1) f.fail("layout.microbatches", "is below 1");
  if (l.microbatches > kMaxMicrobatches)
    f.fail("layout.microbatches", "is above the limit of " + std::to_string(kMaxMicrobatches));
  if (l.world > kMaxWorldSize) f.fail("layout.world", "is above the limit of " + std::to_string(kMaxWorldSize));
  if (!product_is({l.tp, l.cp, l.dp, l.pp}, l.world)) f.fail("layout.world", "is not tp x cp x dp x pp");
  if (!uneven_pipeline_split(plan.args) && plan.args.num_layers % l.pp != 0)
    f.fail("layout.pp", "does not divide model.num_layers");
  if (const std::string why = pipeline_split_problem(plan.args, l.pp, 1); !why.empty()) f.fail("layout.pp", why);
  read_expert_layout(f, lj, plan);
  build_layout_groups(l);
  const json& g = f.object(j, "", "groups");
  // The expert groups are in the file of an MoE plan only.
  const std::tuple<const char*, const std::vector<std::vector<int>>*, bool> lists[] = {
      {"tp", &l.tp_groups, true},
      {"cp", &l.cp_groups, true},
      {"dp", &l.dp_groups, true},
      {"pp", &l.pp_groups, true},
      {"embedding", &l.embedding_groups, true},
      {"model_parallel", &l.model_parallel_groups, true},
      {"ep", &l.ep_groups, l.moe},
      {"expert_tp", &l.expert_tp_groups, l.moe},
      {"tp_ep", &l.tp_ep_groups, l.moe},
      {"expert_dp", &l.expert_dp_groups, l.moe}};
  for (const auto& [key, built, listed] : lists) {
    if (listed && f.get_int_lists(g, "groups", key) != *built) {
      f.fail(std::string("groups.") + key, "does not follow from the layout's sizes and rank order");
    }
  }
  plan.args.tp = l.tp;
  plan.args.cp = l.cp;
  plan.args.pp = l.pp;
  plan.args.rank_order = l.rank_order;
  plan.args.microbatch_group_size = l.microbatch_group;
  plan.args.virtual_stages_per_rank = l.vp > 1 ? l.vp : 0;
}

// A message that cannot come from make_plan is bad input here, before a bench, prediction or replay
// indexes a rank with it: ranks inside the world, a group of distinct ranks holding the issuer, a P2P
// peer that is the group's other rank, and bytes = elements x dtype size.
void check_message(const JsonFields& f, const PlanMessage& m, const std::string& path, int world) {
  if (m.rank < 0 || m.rank >= world) f.fail(path + ".rank", "is outside the world (" + std::to_string(world) + ")");
  if (m.group.empty()) f.fail(path + ".group", "is empty");
  std::vector<int> sorted = m.group;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || sorted.back() >= world) f.fail(path + ".group", "names a rank outside the world");
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) f.fail(path + ".group", "repeats a rank");
  if (!std::binary_search(sorted.begin(), sorted.end(), m.rank)) f.fail(path + ".group", "does not hold the rank");
  const bool p2p = m.op.is_p2p();
  if (p2p && (m.peer < 0 || m.peer == m.rank || sorted.size() != 2 ||
              !std::binary_search(sorted.begin(), sorted.end(), m.peer)))
    f.fail(path + ".peer", "is not the other rank of the group");
  if (!p2p && m.peer != -1) f.fail(path + ".peer", "is set on a collective");
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(m.elements, static_cast<std::int64_t>(dtype_size(m.dtype)), &bytes) || bytes != m.bytes)
    f.fail(path + ".bytes", "is not elements x dtype size");
}

// An in-schedule collective's calls by pass: each >= 0, together its count. A plan written before the counts
// existed has none: its passes cannot be told apart, so it is planned again rather than guessed.
void read_pass_calls(const JsonFields& f, const json& mj, const std::string& path, PlanMessage& m) {
  if (!mj.contains("calls"))
    f.fail(path + ".calls",
           "is missing: an in-schedule collective needs its calls per pass (plan the model again "
           "with this version of pipebench plan)");
  const json& c = f.object(mj, path, "calls");
  const std::string cp = path + ".calls";
  m.passes = {f.get_i64(c, cp, "forward"), f.get_i64(c, cp, "backward"), f.get_i64(c, cp, "recompute")};
  if (m.passes.forward < 0 || m.passes.backward < 0 || m.passes.recompute < 0) f.fail(cp, "has a negative count");
  if (m.passes.forward > m.count || m.passes.backward > m.count || m.passes.recompute > m.count ||
      m.passes.total() != m.count)
    f.fail(cp, "does not add up to the message's count (" + std::to_string(m.count) + ")");
}

PlanMessage read_message(const JsonFields& f, const json& mj, const std::string& path, int world) {
  if (!mj.is_object()) f.fail(path, "is not an object");
  PlanMessage m;
  m.id = f.get_int(mj, path, "id");
  m.rank = f.get_int(mj, path, "rank");
  // P2P, or a collective Megatron issues (OpTraits::in_plans): make_plan emits no other.
  const std::string op = f.get_string(mj, path, "op");
  const auto known = PlanOp::find(op);
  if (!known) f.fail(path + ".op", "is not a plan op (\"" + op + "\")");
  m.op = *known;
  m.group = f.get_ints(mj, path, "group");
  m.peer = f.at(mj, path, "peer").is_null() ? -1 : f.get_int(mj, path, "peer");
  m.elements = f.get_i64(mj, path, "elements");
  m.dtype = dtype_field(f, mj, path, "dtype");
  m.bytes = f.get_i64(mj, path, "bytes");
  m.count = f.get_i64(mj, path, "count");
  m.phase = phase_field(f, mj, path);
  m.what = f.get_string(mj, path, "what");
  f.get_if(mj, path, "routing_dependent", m.routing_dependent);
  if (m.bytes < 0 || m.count < 0 || m.elements < 0) f.fail(path, "has a negative size or count");
  check_message(f, m, path, world);
  if (!m.op.is_p2p() && m.phase != Phase::kAfter) read_pass_calls(f, mj, path, m);
  if (mj.contains("batch")) {
    m.batch = f.get_int(mj, path, "batch");
    m.call = f.get_string(mj, path, "call");
    if (m.batch < 0) f.fail(path + ".batch", "is negative");
    if (!m.op.is_p2p()) f.fail(path + ".batch", "is set on a collective");
    if (m.call.empty()) f.fail(path + ".call", "is empty");
  }
  return m;
}

// A batch is one call issued `count` times with one of each of its messages: its messages share the
// rank's call name and count.
void check_batches(const JsonFields& f, const Schedule& s, const std::string& path) {
  std::map<std::pair<int, int>, std::size_t> first;  // (rank, batch) -> index of its first message
  for (std::size_t i = 0; i < s.messages.size(); ++i) {
    const PlanMessage& m = s.messages[i];
    if (m.batch < 0) continue;
    const auto [it, added] = first.emplace(std::make_pair(m.rank, m.batch), i);
    const PlanMessage& a = s.messages[it->second];
    if (!added && (a.count != m.count || a.call != m.call))
      f.fail(JsonFields::item(path + ".messages", i),
             "is in batch " + std::to_string(m.batch) + " of rank " + std::to_string(m.rank) +
                 " with another call or count than message " + std::to_string(a.id));
  }
}

Schedule read_schedule(const JsonFields& f, const json& sj, const std::string& path, const Layout& l,
                       const MegatronArgs& a) {
  const int pp = l.pp;
  if (!sj.is_object()) f.fail(path, "is not an object");
  Schedule s;
  s.id.name = f.get_string(sj, path, "name");
  s.id.v = f.get_int(sj, path, "v");
  if (const std::string problem = schedule_id_problem(s.id.name, s.id.v); !problem.empty()) f.fail(path, problem);
  if (!uneven_pipeline_split(a) && (a.num_layers / pp) % s.id.v != 0)
    f.fail(path + ".v", "does not divide the layers per pipeline stage");
  if (s.id.v > 1 && pp > 1) {
    if (const std::string why = pipeline_split_problem(a, pp, s.id.v); !why.empty()) f.fail(path + ".v", why);
  }
  s.warmup = f.get_i64s(sj, path, "warmup");
  if (s.warmup.size() != static_cast<std::size_t>(pp))
    f.fail(path + ".warmup", "does not have one entry per pipeline rank");
  // Derived from the layout (megatron/plan.cc): a value that is not (p-1)/(v m) would be printed and written
  // into the prediction as if it were.
  s.bubble_ideal = f.get_double(sj, path, "bubble_ideal");
  const double bubble =
      static_cast<double>(pp - 1) / (static_cast<double>(s.id.v) * static_cast<double>(l.microbatches));
  if (!(std::abs(s.bubble_ideal - bubble) <= 1e-9 * std::max(1.0, bubble))) {
    f.fail(path + ".bubble_ideal", "is " + printf_string("%.17g", s.bubble_ideal) + ", but " + std::to_string(pp) +
                                       " pipeline ranks, v " + std::to_string(s.id.v) + " and " +
                                       std::to_string(l.microbatches) +
                                       " microbatches make (p-1)/(v m) = " + printf_string("%.17g", bubble));
  }
  s.params = f.list(sj, path, "params", [&](const JsonFields& f, const json& pj, const std::string& pi) {
    ChunkParams c{f.get_int(pj, pi, "pp_rank"), f.get_int(pj, pi, "chunk"), f.get_i64(pj, pi, "params"), 0};
    if (c.pp_rank < 0 || c.pp_rank >= pp || c.chunk < 0 || c.chunk >= s.id.v || c.params < 0)
      f.fail(pi, "is not a pipeline rank and chunk of this schedule with a count >= 0");
    c.layers = chunk_layer_range(a, pp, c.pp_rank, c.chunk, s.id.v).count;
    return c;
  });
  // The simulator and the replay run Megatron's warm-up for these arguments (megatron_shape): a file that
  // says otherwise would print one schedule and predict another.
  for (int r = 0; r < pp; ++r) {
    const std::int64_t w = warmup_microbatches(a, l, s.id.v, r);
    if (s.warmup[static_cast<std::size_t>(r)] != w) {
      f.fail(path + ".warmup", "says " + std::to_string(s.warmup[static_cast<std::size_t>(r)]) +
                                   " forwards on pipeline rank " + std::to_string(r) +
                                   ", but these arguments warm up " + std::to_string(w));
    }
  }
  s.messages = f.list(sj, path, "messages", [&l](const JsonFields& f, const json& mj, const std::string& mp) {
    return read_message(f, mj, mp, l.world);
  });
  check_batches(f, s, path);
  return s;
}

}  // namespace

json plan_to_json(const Plan& plan) {
  json schedules = json::array();
  for (const auto& s : plan.schedules) schedules.push_back(schedule_to_json(s, uneven_pipeline_split(plan.args)));
  json doc = {{"schema", kPlanSchema},
              {"tool_version", kToolVersion},
              {"model", model_to_json(plan)},
              {"layout", layout_to_json(plan.layout)},
              {"groups", groups_to_json(plan.layout)},
              {"valid_v", plan.valid_v},
              {"params", schedules.empty() ? json::array() : schedules[0]["params"]},
              {"listed_ranks", plan.listed_ranks},
              {"schedules", schedules},
              {"notes", plan.notes}};
  add_provenance(doc);
  return doc;
}

Plan plan_from_json(const json& j, const std::string& where) {
  const JsonFields f(where);
  f.require_schema(j, kPlanSchema, "pipebench plan");
  Plan plan;
  read_model(f, j, plan);
  read_layout(f, j, plan);
  plan.valid_v = f.get_ints(j, "", "valid_v");
  // Derived from the model and layout: predict names them where a schedule is not in the plan.
  if (const std::vector<int> valid = valid_virtual_stages(plan.args, plan.layout); plan.valid_v != valid)
    f.fail("valid_v", "is " + json(plan.valid_v).dump() + ", not the model's valid v " + json(valid).dump());
  plan.listed_ranks = f.get_ints(j, "", "listed_ranks");
  for (int r : plan.listed_ranks) {
    if (r < 0 || r >= plan.layout.world) f.fail("listed_ranks", "names a rank outside the world");
  }
  const json& schedules = f.array(j, "", "schedules");
  std::map<int, std::string> ids;  // message id -> where it was first seen
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    const std::string path = JsonFields::item("schedules", i);
    plan.schedules.push_back(read_schedule(f, schedules[i], path, plan.layout, plan.args));
    // One entry per schedule: predict's baseline and every selection take a schedule by its key.
    const std::string key = plan.schedules.back().id.key();
    for (std::size_t k = 0; k + 1 < plan.schedules.size(); ++k) {
      if (plan.schedules[k].id.key() == key)
        f.fail(path, "repeats schedule " + key + " of " + JsonFields::item("schedules", k));
    }
    // Message ids are unique across the plan (results/README.md): traces and results name a message by it.
    const auto& msgs = plan.schedules.back().messages;
    for (std::size_t k = 0; k < msgs.size(); ++k) {
      const std::string where = JsonFields::item(path + ".messages", k);
      const auto [it, added] = ids.emplace(msgs[k].id, where);
      if (!added) f.fail(where + ".id", "is " + std::to_string(msgs[k].id) + ", the id of " + it->second + " too");
    }
  }
  if (plan.schedules.empty()) f.fail("schedules", "is empty");
  // The top-level list is a copy of the first schedule's (plan_to_json): read by people and other tools.
  if (f.array(j, "", "params") != schedules[0].at("params"))
    f.fail("params", "is not a copy of schedules[0].params (the plan writes the first schedule's counts there)");
  plan.notes = f.get_strings(j, "", "notes");
  return plan;
}

Plan load_plan(const std::string& flag, const std::string& path) {
  return plan_from_json(read_json_file(flag, path), flag + " " + path);
}

void save_plan(const std::string& path, const Plan& plan) {
  write_output_file("", path, json_file_text(plan_to_json(plan), 1));
}

}  // namespace pipebench
