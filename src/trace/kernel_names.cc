// SPDX-License-Identifier: Apache-2.0
// NCCL kernel names.
#include "trace/kernel_names.h"

#include <utility>

namespace pipebench {
namespace {

std::string_view nccl_part(std::string_view name) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    const auto at = name.find(prefix);
    if (at != std::string_view::npos) {
      auto rest = name.substr(at);
      return rest.substr(0, rest.find_first_of("(< "));
    }
  }
  return {};
}

}  // namespace

bool is_nccl_kernel(std::string_view name) {
  return !nccl_part(name).empty() || name.find("oneRankReduce") != std::string_view::npos;
}

bool is_p2p_kernel(std::string_view name) {
  const std::string_view part = nccl_part(name);
  return part.find("Send") != std::string_view::npos || part.find("Recv") != std::string_view::npos;
}

std::string nccl_kernel_call(std::string_view name) {
  if (is_p2p_kernel(name)) return "sendrecv";
  const std::string_view part = nccl_part(name);
  // ReduceScatter before Reduce (a token is found inside the longer one).
  for (const auto& [token, op] :
       std::initializer_list<std::pair<std::string_view, const char*>>{{"AllReduce", "all_reduce"},
                                                                       {"AllGather", "all_gather"},
                                                                       {"ReduceScatter", "reduce_scatter"},
                                                                       {"Broadcast", "broadcast"},
                                                                       {"Reduce", "reduce"}}) {
    if (part.find(token) != std::string_view::npos) return op;
  }
  return "unknown";
}

std::optional<TraceDType> nccl_kernel_dtype(std::string_view name) {
  // Tokens are '_'-separated, but the older C type names hold '_' themselves (int8_t, __nv_bfloat16)
  // and end the name: try, at every token start, the token and the whole rest.
  const std::string_view part = nccl_part(name);
  for (std::size_t start = 0; start < part.size();) {
    const auto rest = part.substr(start);
    if (auto t = dtype_from_nccl_token(rest.substr(0, rest.find('_')))) return t;
    if (auto t = dtype_from_nccl_token(rest)) return t;
    const auto sep = rest.find('_');
    if (sep == std::string_view::npos) break;
    start += sep + 1;
  }
  return std::nullopt;
}

}  // namespace pipebench
