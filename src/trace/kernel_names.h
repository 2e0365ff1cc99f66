// SPDX-License-Identifier: Apache-2.0
// What a kernel name says: whether it is NCCL's (communication), and which collective and dtype.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "trace/trace_dtype.h"

namespace pipebench {

// ncclDevKernel_* (NCCL >= 2.19), ncclKernel_* (older; trace-formats.md C1) and NCCL's one-rank
// reduction kernel (oneRankReduce, launched instead of a collective when a communicator has one rank).
// Demangled names ("void ncclKernel_...(...)") count too.
[[nodiscard]] bool is_nccl_kernel(std::string_view name);

// An NCCL point-to-point kernel (ncclDevKernel_SendRecv, older ncclKernel_SendRecv_*): it synchronizes
// two ranks, not the job, so it cannot align the clocks of all ranks.
[[nodiscard]] bool is_p2p_kernel(std::string_view name);

// The call an NCCL kernel runs, by its name: "sendrecv" for the P2P kernel, else all_reduce, all_gather,
// reduce_scatter, broadcast, reduce (the plan's op names), or "unknown".
[[nodiscard]] std::string nccl_kernel_call(std::string_view name);

// The dtype token of an NCCL kernel name: ncclDevKernel_AllReduce_Sum_bf16_RING_LL -> bfloat16,
// ncclKernel_AllReduce_RING_LL_Sum_float -> float. nullopt when the name has none (SendRecv, AllGather
// in NCCL >= 2.19 moves bytes).
[[nodiscard]] std::optional<TraceDType> nccl_kernel_dtype(std::string_view name);

}  // namespace pipebench
