// SPDX-License-Identifier: Apache-2.0
// ReplayBuffers: the one set of send and receive buffers a replay's calls use, allocated by the backend
// (Backend::allocate, as bench allocates) and grown to the largest call (contents are not checked). Both
// replay runtimes keep theirs here.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backend/backend.h"

namespace pipebench {

class ReplayBuffers {
 public:
  // REQUIRES: owner outlives the buffers; on NCCL its memory is usable by every communicator split from it.
  explicit ReplayBuffers(Backend& owner) : owner_(owner) {}

  // Whether get(send_bytes, recv_bytes, ...) would allocate.
  [[nodiscard]] bool grows(std::size_t send_bytes, std::size_t recv_bytes) const;
  // Whether grown-out sets are still held.
  [[nodiscard]] bool holds_retired() const { return !retired_.empty(); }

  // Buffers of at least these sizes. in_use: asynchronous P2P may still use the current set (a schedule
  // whose sends are waited for at the end of the iteration, with collectives in between), which is then
  // kept until a call with in_use false, instead of being freed under it.
  [[nodiscard]] const Buffers& get(std::size_t send_bytes, std::size_t recv_bytes, bool in_use);

 private:
  Backend& owner_;
  std::unique_ptr<Buffers> current_;
  std::vector<std::unique_ptr<Buffers>> retired_;
};

}  // namespace pipebench
