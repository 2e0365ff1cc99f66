// SPDX-License-Identifier: Apache-2.0
// Collective names and NVTX collective texts.
#include "trace/collective_text.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

#include "collectives/registry.h"

namespace pipebench {
namespace {

// Element count of one shape (a JSON array of non-negative integers); nullopt when it is not one.
std::optional<std::int64_t> shape_elements(const nlohmann::json& shape) {
  std::int64_t n = 1;
  for (const auto& d : shape) {
    if (!d.is_number_integer()) return std::nullopt;
    const auto dim = d.get<std::int64_t>();
    if (dim < 0) return std::nullopt;
    if (dim != 0 && n > std::numeric_limits<std::int64_t>::max() / dim) return std::nullopt;
    n *= dim;
  }
  return n;
}

bool is_shape(const nlohmann::json& j) {
  return j.is_array() && std::all_of(j.begin(), j.end(), [](const auto& d) { return d.is_number(); });
}

}  // namespace

std::string normalize_collective(std::string_view name) {
  std::string lower, compact;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lower += l;
    if (l != '_') compact += l;
  }
  // c10d spellings: allreduce, allreduce_coalesced, _allgather_base, all_gather_into_tensor_coalesced,
  // _reduce_scatter_base, reduce_scatter_tensor_coalesced, alltoall_base, all_to_allv, ...: an op's
  // c10d alias (collectives/) starts them. The halves of a transfer and the barrier are no op.
  if (const Op* op = OpRegistry::instance().resolve_c10d(compact)) return std::string(op->name());
  for (std::string_view other : {"send", "recv", "barrier"}) {
    if (compact.rfind(other, 0) == 0) return std::string(other);
  }
  return lower;
}

std::optional<std::vector<std::int64_t>> parse_shape_list(std::string_view text) {
  const auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) return std::nullopt;
  std::vector<std::int64_t> out;
  auto take = [&out](const nlohmann::json& shape) {
    if (shape.empty()) return true;  // a non-tensor argument
    const auto n = shape_elements(shape);
    if (!n) return false;
    out.push_back(*n);
    return true;
  };
  for (const auto& arg : j) {
    if (is_shape(arg)) {
      if (!take(arg)) return std::nullopt;
    } else if (arg.is_array() && std::all_of(arg.begin(), arg.end(), is_shape)) {
      for (const auto& shape : arg)
        if (!take(shape)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<TextCollective> parse_collective_text(std::string_view text) {
  constexpr std::string_view kPrefix = "nccl:";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const auto rest = text.substr(kPrefix.size());
  TextCollective c;
  c.op = normalize_collective(rest.substr(0, rest.find_first_of(", ")));
  if (c.op.empty()) return std::nullopt;
  constexpr std::string_view kSizes = "sizes = ";
  const auto at = text.find(kSizes);
  if (at == std::string_view::npos) return c;
  c.sizes_present = true;
  // The list runs from its '[' to the matching ']'; what follows (", input_op_ids = ...") is not ours.
  const auto open = at + kSizes.size();
  if (open >= text.size() || text[open] != '[') return c;
  int depth = 0;
  std::size_t close = open;
  for (; close < text.size(); ++close) {
    if (text[close] == '[') ++depth;
    if (text[close] == ']' && --depth == 0) break;
  }
  if (close == text.size()) return c;
  const auto sizes = parse_shape_list(text.substr(open, close - open + 1));
  if (!sizes || sizes->empty()) return c;
  c.elements = *std::max_element(sizes->begin(), sizes->end());
  return c;
}

}  // namespace pipebench
