// SPDX-License-Identifier: Apache-2.0
// The per-rank count of ops that split a buffer over ranks, exactly as nccl-tests computes it.
#pragma once

#include <cstddef>

namespace pipebench {

// base = (count / n) & ~(16/e - 1): the per-rank count rounded down to a multiple of 16 bytes
// (nccl-tests all_gather.cu / reduce_scatter.cu getCollByteCount, commit 29f4114). Small sizes
// therefore become 0-byte rows, as in nccl-tests.
inline std::size_t split_count(std::size_t requested_bytes, std::size_t e, int nranks) {
  const std::size_t count = requested_bytes / e;
  const std::size_t align = e >= 16 ? 1 : 16 / e;
  return (count / static_cast<std::size_t>(nranks)) & ~(align - 1);
}

}  // namespace pipebench
