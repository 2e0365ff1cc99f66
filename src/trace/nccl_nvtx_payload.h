// SPDX-License-Identifier: Apache-2.0
// NCCL's own NVTX ranges (domain "NCCL", NCCL >= 2.16.2; src/include/nvtx.h and, from 2.25,
// src/include/nvtx_payload_schemas.h): one push/pop range per API call, named after the function
// ("ncclAllReduce", "ncclSend", ...), with an extended payload whose schema entries NCCL names
// "Message size [bytes]" (every collective; "Bytes" for ncclBroadcast, ncclSend and ncclRecv before
// 2.25), "NCCL communicator ID" (2.25 on), "Root", "Peer rank", "Reduction operation". The size is
// count x the datatype's size, with AllGather's send count and ReduceScatter's receive count (per
// rank, not the whole tensor). NCCL's payloads carry no datatype.
//
// Nsight Systems' SQLite export holds a payload in NVTX_EVENTS.jsonText ("one of possible payload
// value union members", NVIDIA's SQLite schema reference) when asked to (`nsys export
// --include-json=true`); that it writes NCCL's payload there as one JSON object keyed by the entry
// names (numbers possibly as text with digit separators) is how third parties read real exports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipebench {

struct NcclPayloadRange {
  std::string op;                     // pipebench's name: all_reduce, send, ...
  std::optional<std::int64_t> bytes;  // per rank as NCCL counts it; none when the payload has no size
  // How the byte count relates to the whole tensor a plan names: all_gather's is one rank's part
  // (the send buffer), reduce_scatter's one rank's output.
  bool per_rank_part = false;
};

// The NCCL API's range names; nullopt for any other text.
[[nodiscard]] std::optional<std::string> nccl_api_collective(std::string_view range_name);

// nullopt unless range_name is an NCCL API range. json_text: the payload as exported (empty: none);
// text that is not a JSON object, or a size that is negative or not an integer, gives no bytes.
[[nodiscard]] std::optional<NcclPayloadRange> parse_nccl_nvtx_range(std::string_view range_name,
                                                                    std::string_view json_text);

}  // namespace pipebench
