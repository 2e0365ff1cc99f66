// SPDX-License-Identifier: Apache-2.0
// NCCL NVTX payload ranges.
#include "trace/nccl_nvtx_payload.h"

#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "collectives/registry.h"

namespace pipebench {
namespace {

// NCCL's point-to-point calls, the halves of a transfer as the plan names them; the collectives' API
// names are their ops' aliases (collectives/).
constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kP2pApi = {
    {{"ncclSend", "send"}, {"ncclRecv", "recv"}}};

// A byte count as a JSON number, or as text of digits with optional separators ("1,048,576").
std::optional<std::int64_t> byte_count(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    return i >= 0 ? std::optional<std::int64_t>(i) : std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  std::int64_t n = 0;
  bool digits = false;
  for (char c : s) {
    if (c == ',' || c == ' ' || c == '_') continue;
    if (c < '0' || c > '9') return std::nullopt;
    if (n > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    n = n * 10 + (c - '0');
    digits = true;
  }
  return digits ? std::optional<std::int64_t>(n) : std::nullopt;
}

}  // namespace

std::optional<std::string> nccl_api_collective(std::string_view range_name) {
  for (const auto& [api, op] : kP2pApi) {
    if (range_name == api) return std::string(op);
  }
  const Op* op = OpRegistry::instance().resolve(OpAlias::kNcclApi, range_name);
  return op ? std::optional<std::string>(op->name()) : std::nullopt;
}

std::optional<NcclPayloadRange> parse_nccl_nvtx_range(std::string_view range_name, std::string_view json_text) {
  auto op = nccl_api_collective(range_name);
  if (!op) return std::nullopt;
  NcclPayloadRange out;
  out.op = std::move(*op);
  const Op* known = OpRegistry::instance().get(out.op);
  out.per_rank_part = known && known->traits().nccl_count_is_rank_part;
  if (json_text.empty()) return out;
  const auto doc = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return out;
  for (const char* key : {"Message size [bytes]", "Bytes"}) {
    const auto it = doc.find(key);
    if (it != doc.end()) {
      out.bytes = byte_count(*it);
      break;
    }
  }
  return out;
}

}  // namespace pipebench
