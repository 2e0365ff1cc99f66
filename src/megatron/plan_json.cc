// SPDX-License-Identifier: Apache-2.0
// Plan JSON.
#include "megatron/plan_json.h"

#include "core/error.h"
#include "core/json_file.h"
#include "core/version.h"

namespace pipebench {

nlohmann::json plan_to_json(const Plan& plan) {
  const MegatronArgs& a = plan.args;
  const Layout& l = plan.layout;
  nlohmann::json model = {{"num_layers", a.num_layers},
                          {"hidden_size", a.hidden},
                          {"ffn_hidden_size", a.ffn_hidden},
                          {"num_attention_heads", a.heads},
                          {"num_query_groups", a.gqa ? nlohmann::json(a.query_groups) : nlohmann::json(nullptr)},
                          {"swiglu", a.swiglu},
                          {"seq_length", a.seq_length},
                          {"max_position_embeddings", a.max_position_embeddings},
                          {"vocab_size", a.vocab_size},
                          {"padded_vocab_size", padded_vocab(a)},
                          {"vocab_source", a.vocab_source},
                          {"micro_batch_size", a.micro_batch},
                          {"global_batch_size", a.global_batch},
                          {"params_dtype", std::string(dtype_name(a.params_dtype))},
                          {"grad_dtype", std::string(dtype_name(grad_dtype(a)))},
                          {"sequence_parallel", a.sequence_parallel && a.tp > 1},
                          {"distributed_optimizer", a.distributed_optimizer},
                          {"overlap_grad_reduce", a.overlap_grad_reduce},
                          {"overlap_p2p_communication", a.overlap_p2p},
                          {"untie_embeddings_and_output_weights", a.untie_embeddings},
                          {"megatron_version", a.version == MegatronVersion::kMain ? "main" : "core_v0.9"},
                          {"ignored_arguments", a.ignored},
                          {"unknown_arguments", a.unknown}};
  nlohmann::json schedules = nlohmann::json::array();
  for (const auto& s : plan.schedules) {
    nlohmann::json msgs = nlohmann::json::array(), params = nlohmann::json::array();
    for (const auto& p : s.params) params.push_back({{"pp_rank", p.pp_rank}, {"chunk", p.chunk}, {"params", p.params}});
    for (const auto& m : s.messages) {
      msgs.push_back({{"id", m.id},
                      {"rank", m.rank},
                      {"op", m.op},
                      {"group", m.group},
                      {"peer", m.peer >= 0 ? nlohmann::json(m.peer) : nlohmann::json(nullptr)},
                      {"elements", m.elements},
                      {"dtype", std::string(dtype_name(m.dtype))},
                      {"bytes", m.bytes},
                      {"count", m.count},
                      {"phase", phase_name(m.phase)},
                      {"what", m.what}});
    }
    schedules.push_back({{"name", s.name},
                         {"v", s.v},
                         {"warmup", s.warmup},
                         {"bubble_ideal", s.bubble_ideal},
                         {"params", params},
                         {"messages", msgs}});
  }
  return {{"schema", kPlanSchema},
          {"tool_version", kToolVersion},
          {"model", model},
          {"layout",
           {{"world", l.world},
            {"tp", l.tp},
            {"cp", l.cp},
            {"dp", l.dp},
            {"pp", l.pp},
            {"vp", l.vp},
            {"microbatches", l.microbatches},
            {"microbatch_group_size", l.microbatch_group},
            {"rank_order", l.rank_order}}},
          {"groups",
           {{"tp", l.tp_groups},
            {"cp", l.cp_groups},
            {"dp", l.dp_groups},
            {"pp", l.pp_groups},
            {"embedding", l.embedding_groups},
            {"model_parallel", l.model_parallel_groups}}},
          {"valid_v", plan.valid_v},
          {"params", schedules.empty() ? nlohmann::json::array() : schedules[0]["params"]},
          {"listed_ranks", plan.listed_ranks},
          {"schedules", schedules},
          {"notes", plan.notes}};
}

nlohmann::json load_plan_json(const std::string& flag, const std::string& path) {
  const nlohmann::json j = read_json_file(flag, path);
  if (!j.is_object() || !j.contains("schema")) throw UsageError(flag + " " + path + ": not a pipebench plan (no \"schema\")");
  if (j["schema"] != kPlanSchema) {
    throw UsageError(flag + " " + path + ": schema " + j["schema"].dump() + " is not " + kPlanSchema);
  }
  for (const char* key : {"layout", "schedules"}) {
    if (!j.contains(key)) throw UsageError(flag + " " + path + ": plan without \"" + key + "\"");
  }
  return j;
}

}  // namespace pipebench
