// SPDX-License-Identifier: Apache-2.0
#include "io/compute_model_io.h"

#include <cmath>
#include <string>

#include "core/error.h"

namespace pipebench {

namespace {

using nlohmann::json;

double time_field(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) throw Error(std::string("compute model: no number '") + key + "'");
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) throw Error(std::string("compute model: '") + key + "' is not finite and >= 0");
  return v;
}

}  // namespace

json compute_model_to_json(const ComputeModel& m) {
  json ranks = json::array();
  for (const RankCompute& r : m.ranks) {
    ranks.push_back({{"fwd_ms_per_layer", r.fwd_ms_per_layer},
                     {"bwd_ms_per_layer", r.bwd_ms_per_layer},
                     {"w_share", r.w_share},
                     {"pass_overhead_ms", r.pass_overhead_ms},
                     {"optimizer_ms", r.optimizer_ms}});
  }
  return {{"fwd_ms_per_layer", m.fwd_ms_per_layer},
          {"bwd_ms_per_layer", m.bwd_ms_per_layer},
          {"w_share", m.w_share},
          {"output_layer_fwd_ms", m.output_layer_fwd_ms},
          {"optimizer_ms", m.optimizer_ms},
          {"comm_sm_slowdown", m.comm_sm_slowdown},
          {"pass_overhead_ms", m.pass_overhead_ms},
          {"source", m.source},
          {"sends_block", m.sends_block},
          {"ranks", ranks}};
}

ComputeModel compute_model_from_json(const json& j) {
  if (!j.is_object()) throw Error("compute model: not a JSON object");
  ComputeModel m;
  m.fwd_ms_per_layer = time_field(j, "fwd_ms_per_layer");
  m.bwd_ms_per_layer = time_field(j, "bwd_ms_per_layer");
  m.w_share = time_field(j, "w_share");
  m.output_layer_fwd_ms = time_field(j, "output_layer_fwd_ms");
  m.optimizer_ms = time_field(j, "optimizer_ms");
  m.comm_sm_slowdown = time_field(j, "comm_sm_slowdown");
  m.pass_overhead_ms = time_field(j, "pass_overhead_ms");
  if (!j.contains("source") || !j["source"].is_string()) throw Error("compute model: no string 'source'");
  m.source = j["source"].get<std::string>();
  if (!j.contains("sends_block") || !j["sends_block"].is_boolean())
    throw Error("compute model: no boolean 'sends_block'");
  m.sends_block = j["sends_block"].get<bool>();
  if (!j.contains("ranks") || !j["ranks"].is_array()) throw Error("compute model: no array 'ranks'");
  for (const json& r : j["ranks"]) {
    if (!r.is_object()) throw Error("compute model: a rank that is not an object");
    m.ranks.push_back({time_field(r, "fwd_ms_per_layer"), time_field(r, "bwd_ms_per_layer"), time_field(r, "w_share"),
                       time_field(r, "pass_overhead_ms"), time_field(r, "optimizer_ms")});
  }
  return m;
}

}  // namespace pipebench
