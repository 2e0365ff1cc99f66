// SPDX-License-Identifier: Apache-2.0
#include "backend/replay_buffers.h"

#include <algorithm>

namespace pipebench {

bool ReplayBuffers::grows(std::size_t send_bytes, std::size_t recv_bytes) const {
  return !current_ || current_->send_bytes() < send_bytes || current_->recv_bytes() < recv_bytes;
}

const Buffers& ReplayBuffers::get(std::size_t send_bytes, std::size_t recv_bytes, bool in_use) {
  if (!in_use) retired_.clear();
  if (grows(send_bytes, recv_bytes)) {
    const std::size_t send = std::max(send_bytes, current_ ? current_->send_bytes() : 0);
    const std::size_t recv = std::max(recv_bytes, current_ ? current_->recv_bytes() : 0);
    if (in_use && current_) retired_.push_back(std::move(current_));
    current_.reset();  // freed before the larger set is allocated
    current_ = owner_.allocate(send, recv, BufferOptions{});
  }
  return *current_;
}

}  // namespace pipebench
