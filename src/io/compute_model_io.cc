// SPDX-License-Identifier: Apache-2.0
#include "io/compute_model_io.h"

#include <string>

#include "core/error.h"
#include "io/json_fields.h"

namespace pipebench {

namespace {

using nlohmann::json;

double time_field(const JsonFields& f, const json& j, const std::string& path, const char* key) {
  return f.get_non_negative<double>(j, path, key);
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
  const JsonFields f("compute model");
  if (!j.is_object()) throw UsageError("compute model: not a JSON object");
  ComputeModel m;
  m.fwd_ms_per_layer = time_field(f, j, "", "fwd_ms_per_layer");
  m.bwd_ms_per_layer = time_field(f, j, "", "bwd_ms_per_layer");
  m.w_share = time_field(f, j, "", "w_share");
  m.output_layer_fwd_ms = time_field(f, j, "", "output_layer_fwd_ms");
  m.optimizer_ms = time_field(f, j, "", "optimizer_ms");
  m.comm_sm_slowdown = time_field(f, j, "", "comm_sm_slowdown");
  m.pass_overhead_ms = time_field(f, j, "", "pass_overhead_ms");
  m.source = f.get<std::string>(j, "", "source");
  m.sends_block = f.get<bool>(j, "", "sends_block");
  m.ranks = f.list(j, "", "ranks", [](const JsonFields& f, const json& r, const std::string& p) {
    return RankCompute{time_field(f, r, p, "fwd_ms_per_layer"), time_field(f, r, p, "bwd_ms_per_layer"),
                       time_field(f, r, p, "w_share"), time_field(f, r, p, "pass_overhead_ms"),
                       time_field(f, r, p, "optimizer_ms")};
  });
  return m;
}

}  // namespace pipebench
