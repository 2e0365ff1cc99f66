// SPDX-License-Identifier: Apache-2.0
// Pass costs as JSON.
#include "io/pass_costs_io.h"

#include <cstdint>
#include <limits>
#include <utility>

namespace pipebench {

using nlohmann::json;

namespace {

// The measured terms, in the order the file lists them.
constexpr std::pair<const char*, Stats PassCosts::*> kTerms[] = {
    {"call_device_us", &PassCosts::call_device_us},
    {"call_host_us", &PassCosts::call_host_us},
    {"sync_gap_us", &PassCosts::sync_gap_us},
    {"gemm_alone_us", &PassCosts::gemm_alone_us},
    {"gemm_beside_nccl_us", &PassCosts::gemm_beside_nccl_us}};

json term_to_json(const Stats& s) {
  return {{"median_us", s.median_us}, {"min_us", s.min_us}, {"max_us", s.max_us}, {"samples", s.samples}};
}

Stats term_from_json(const JsonFields& f, const json& parent, const std::string& path, const std::string& key) {
  const json& t = f.object(parent, path, key);
  const std::string p = JsonFields::join(path, key);
  Stats s;
  s.median_us = f.get_non_negative<double>(t, p, "median_us");
  s.min_us = f.get_non_negative<double>(t, p, "min_us");
  s.max_us = f.get_non_negative<double>(t, p, "max_us");
  s.samples = static_cast<std::size_t>(f.get_in<std::int64_t>(t, p, "samples", 1, std::int64_t{1} << 30));
  if (!(s.min_us <= s.median_us && s.median_us <= s.max_us)) f.fail(p, "is not min_us <= median_us <= max_us");
  return s;
}

}  // namespace

json pass_costs_to_json(const PassCosts& c) {
  json j = {
      {"gpu", c.gpu},
      {"p2p_bytes", c.p2p_bytes},
      {"device_max_connections", c.device_max_connections.empty() ? json(nullptr) : json(c.device_max_connections)}};
  for (const auto& [key, member] : kTerms) j[key] = term_to_json(c.*member);
  j["nccl_beside_us"] = c.nccl_beside_us;
  return j;
}

PassCosts pass_costs_from_json(const JsonFields& f, const json& parent, const std::string& path,
                               const std::string& key) {
  const json& j = f.object(parent, path, key);
  const std::string p = JsonFields::join(path, key);
  PassCosts c;
  c.gpu = f.get_string(j, p, "gpu");
  c.p2p_bytes = f.get_in<std::int64_t>(j, p, "p2p_bytes", 1, std::numeric_limits<std::int64_t>::max());
  if (!f.at(j, p, "device_max_connections").is_null())
    c.device_max_connections = f.get_string(j, p, "device_max_connections");
  for (const auto& [name, member] : kTerms) c.*member = term_from_json(f, j, p, name);
  c.nccl_beside_us = f.get_non_negative<double>(j, p, "nccl_beside_us");
  return c;
}

}  // namespace pipebench
