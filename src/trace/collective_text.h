// SPDX-License-Identifier: Apache-2.0
// Collectives as profiles name them: c10d's names ("allreduce", "_allgather_base",
// "reduce_scatter_tensor_coalesced", ...), and the NVTX range texts PyTorch emits around each c10d call
// under emit_nvtx / record_shapes: "nccl:all_reduce, op_id = 12, sizes = [[32, 1, 4096]], input_op_ids = ...".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipebench {

// all_reduce, all_gather, reduce_scatter, alltoall, broadcast, send, recv, reduce, gather, scatter,
// barrier; anything else lower-cased as given. The plan uses the same names (megatron/plan.h).
[[nodiscard]] std::string normalize_collective(std::string_view name);

// "[[32, 1, 4096], [], [[2, 3], [4]]]": one entry per argument, a shape or a list of shapes. Parsed
// as JSON by nlohmann-json (the lists are JSON), never evaluated. Returns the element count of every
// tensor in order (empty shapes, i.e. non-tensor arguments, are left out); nullopt when the text is
// not such a list, a dimension is negative or not an integer, or a product overflows.
[[nodiscard]] std::optional<std::vector<std::int64_t>> parse_shape_list(std::string_view text);

struct TextCollective {
  std::string op;
  std::int64_t elements = -1;  // the largest tensor of the call; -1 when the sizes are absent or unparsable
  bool sizes_present = false;
};

// nullopt when the text does not name a c10d collective (does not start with "nccl:").
[[nodiscard]] std::optional<TextCollective> parse_collective_text(std::string_view text);

}  // namespace pipebench
