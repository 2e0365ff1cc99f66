// SPDX-License-Identifier: Apache-2.0
// The steps of the handcrafted zero-bubble schedules (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR
// 2024, §2) and of PyTorch's InterleavedZeroBubble: 1F1B's order of forwards (F) and activation gradients
// (B) over the shape's virtual microbatches (one per microbatch with one chunk per rank; m v in the order of
// the forward table with more), with each weight gradient (W) split off and deferred. After every B the rank runs the
// oldest pending W only while more than `deferred` are pending, and the rest after the last B, where they fill the
// cool-down's bubble. The calls are 1F1B's (Megatron's names), except that a send followed by a W is posted
// asynchronously and waited for after the W, so the transfer runs while W computes. With kWholeBackward nothing is
// split off: 1F1B itself (one_f_one_b.cc).
#pragma once

#include <algorithm>
#include <cstdint>

#include "schedule/program_writer.h"

namespace pipebench {

class ZeroBubbleWriter {
 public:
  static constexpr std::int64_t kWholeBackward = -1;
  // warmup: forwards before the steady phase (its first step runs one more F, then the first B); deferred: W
  // passes a rank keeps pending in the steady phase.
  ZeroBubbleWriter(const ScheduleShape& shape, int r, ProgramSink& sink, std::int64_t warmup, std::int64_t deferred)
      : w_(shape, r, sink), m_(shape.steps()), warm_(std::min(warmup, shape.steps())), deferred_(deferred) {}

  void run() {
    const std::int64_t rest = m_ - warm_;
    for (std::int64_t i = 0; i < warm_; ++i) w_.blocking_step(Pass::kForward, i);
    if (rest > 0) w_.alone(false, Pass::kForward, warm_);
    for (std::int64_t i = 0; i < rest; ++i) {
      w_.compute(Pass::kForward, warm_ + i);
      Call a = w_.call("send_forward_recv_backward");
      w_.send_fwd(a, warm_ + i);
      w_.recv_bwd(a, i);
      w_.issue(a);
      w_.compute(Pass::kBackward, i);
      const bool more = i + 1 < rest, w_next = b_done();
      Call b = w_.call(more ? "send_backward_recv_forward" : "send_backward", w_next);
      w_.send_bwd(b, i);
      if (more) w_.recv_fwd(b, warm_ + i + 1);
      send_then_w(b);
    }
    for (std::int64_t i = rest; i < m_; ++i) {
      w_.alone(false, Pass::kBackward, i);
      w_.compute(Pass::kBackward, i);
      Call out = w_.call("send_backward", b_done());
      w_.send_bwd(out, i);
      send_then_w(out);
    }
    while (deferred_ != kWholeBackward && w_done_ < m_) w_.compute(Pass::kWeight, w_done_++);
  }

 private:
  // Counts the B just run; whether it leaves more than `deferred` W passes pending (then W runs next).
  [[nodiscard]] bool b_done() {
    ++b_count_;
    return deferred_ != kWholeBackward && b_count_ - w_done_ > deferred_;
  }
  // Issues the send after a B; an async one (a W is due) is waited for after that W.
  void send_then_w(const Call& c) {
    const int handle = w_.issue(c);
    if (!c.async) return;
    w_.compute(Pass::kWeight, w_done_++);
    w_.wait(handle);
  }

  ProgramWriter w_;
  std::int64_t m_, warm_, deferred_;  // m_: virtual microbatches (m v)
  std::int64_t b_count_ = 0, w_done_ = 0;
};

}  // namespace pipebench
