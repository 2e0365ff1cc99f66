// SPDX-License-Identifier: Apache-2.0
#include "trace/kineto_fields.h"

#include <cmath>
#include <string>

#include "trace/profile_builder.h"

namespace pipebench {

TimeField kineto_time(const nlohmann::json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_number()) return {};
  const double ns = it->get<double>() * 1000.0;
  if (!(ns >= 0 && ns <= kMaxTraceTimeNs)) return {true, false, 0};  // also NaN
  return {true, true, static_cast<std::int64_t>(std::llround(ns))};
}

std::optional<std::int64_t> kineto_int(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (!(std::fabs(d) < 9.0e18)) return std::nullopt;  // the cast would be undefined
    return static_cast<std::int64_t>(d);
  }
  if (value.is_string()) {  // older traces: "stream 7", "GPU 0"
    const auto& s = value.get_ref<const std::string&>();
    const auto at = s.find_first_of("0123456789");
    if (at == std::string::npos) return std::nullopt;
    try {
      return std::stoll(s.substr(at));
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> kineto_int(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  return kineto_int(*it);
}

}  // namespace pipebench
