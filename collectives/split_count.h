// SPDX-License-Identifier: Apache-2.0
// The ops that split a buffer into one block per rank (all_gather, gather, scatter, alltoall, reduce_scatter).
#pragma once

#include <cstddef>

#include "collectives/op.h"

namespace pipebench {

// base = (count / n) & ~(16/e - 1): the per-rank count rounded down to a multiple of 16 bytes
// (nccl-tests all_gather.cu / reduce_scatter.cu getCollByteCount, commit 29f4114). Small sizes
// therefore become 0-byte rows, as in nccl-tests.
inline std::size_t split_count(std::size_t requested_bytes, std::size_t e, int nranks) {
  const std::size_t count = requested_bytes / e;
  const std::size_t align = e >= 16 ? 1 : 16 / e;
  return (count / static_cast<std::size_t>(nranks)) & ~(align - 1);
}

// count = per rank, size = all n blocks, which the receive buffer holds; the send buffer holds one block
// (a gather's input) or all n (send_all: a scatter's, an alltoall's or a reduce_scatter's input).
inline Sizing split_sizing(std::size_t requested_bytes, std::size_t e, int nranks, bool send_all) {
  const std::size_t base = split_count(requested_bytes, e, nranks);
  const std::size_t total = base * static_cast<std::size_t>(nranks) * e;
  return {base, total, send_all ? total : base * e, total};
}

// Local rank `local`'s own block of its receive buffer: an in-place gather's input or scatter's output (nccl.h).
inline char* own_block(const Backend& b, int local, const CallArgs& a) {
  return static_cast<char*>(a.buffers.recv(local)) +
         static_cast<std::size_t>(b.rank_of(local)) * a.sizing.count * dtype_size(a.dtype);
}

// A gather's data: the rank's block (in place: at its own block of the receive buffer) and, where the
// output is checked, every rank's block at its place.
inline DataLayout gathered_layout(const Sizing& s, int rank, int n, bool in_place, bool checked) {
  DataLayout d;
  const std::size_t mine = static_cast<std::size_t>(rank) * s.count;
  d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, in_place ? mine : 0, s.count, rank, 0});
  for (int src = 0; checked && src < n; ++src) {
    d.checks.push_back({static_cast<std::size_t>(src) * s.count, s.count, false, src, 0});
  }
  return d;
}

}  // namespace pipebench
