// SPDX-License-Identifier: Apache-2.0
// What every generator writes with: the four P2P ops of a step, present only where Megatron issues them
// (§2 Peers), calls with their handles, compute passes and waits, all passed on to a ProgramSink.
#pragma once

#include <cstdint>

#include "schedule/program.h"

namespace pipebench {

class ProgramWriter {
 public:
  ProgramWriter(const ScheduleShape& shape, int r, ProgramSink& sink) : s_(shape), r_(r), sink_(sink) {}

  [[nodiscard]] const ScheduleShape& shape() const { return s_; }
  [[nodiscard]] int rank() const { return r_; }

  // A call of this name; batched as Megatron's schedule of this shape issues it (batch_p2p_comm = not
  // overlap_p2p_comm, §2; 1F1B always batches).
  [[nodiscard]] Call call(const char* name, bool async = false) const {
    Call c;
    c.name = name;
    c.batched = s_.v == 1 || !s_.overlap_p2p;
    c.async = async;
    return c;
  }

  // §2 Peers: only the global first virtual stage has no input to receive or grad to send, only the global
  // last no output to send or grad to receive (with Megatron's placement r 0 chunk 0 and r p-1 chunk v-1);
  // a neighbouring stage on this rank (the V placement's turn on rank p-1) takes the tensor without a call.
  void recv_fwd(Call& c, std::int64_t k) const {
    if (remote(Pass::kForward, k, -1)) add(c, {false, false, k});
  }
  void send_fwd(Call& c, std::int64_t k) const {
    if (remote(Pass::kForward, k, +1)) add(c, {true, false, k});
  }
  void recv_bwd(Call& c, std::int64_t k) const {
    if (remote(Pass::kBackward, k, +1)) add(c, {false, true, k});
  }
  void send_bwd(Call& c, std::int64_t k) const {
    if (remote(Pass::kBackward, k, -1)) add(c, {true, true, k});
  }

  // Passes a call on: a blocking call without ops is no call; an async one gets the next handle (returned,
  // -1 for blocking calls) even without ops, so the wait that names it stays in place.
  int issue(Call c) {
    if (!c.async && c.nops == 0) return -1;
    if (c.async) c.handle = next_handle_++;
    sink_.call(c);
    return c.handle;
  }
  // Issues a call of one op alone: the receive of pass k's input or the send of its output (as the four
  // above), named as Megatron's call of it (recv_forward, send_backward, ...) unless `name` is given.
  int alone(bool send, Pass pass, std::int64_t k, bool async = false, const char* name = nullptr) {
    static const char* const kNames[2][2] = {{"recv_forward", "recv_backward"}, {"send_forward", "send_backward"}};
    const bool grad = pass != Pass::kForward;
    Call c = call(name ? name : kNames[send][grad], async);
    if (remote(pass, k, send != grad ? +1 : -1)) add(c, {send, grad, k});
    return issue(c);
  }
  // recv_forward, F, send_forward (or recv_backward, B, send_backward), each call blocking: GPipe's steps and
  // 1F1B's warm-up and cool-down (schedules.py forward_backward_pipelining_without_interleaving).
  void blocking_step(Pass pass, std::int64_t k) {
    alone(false, pass, k);
    compute(pass, k);
    alone(true, pass, k);
  }
  void compute(Pass pass, std::int64_t k) { sink_.compute(pass, k); }
  void wait(int handle) {
    if (handle >= 0) sink_.wait(handle);
  }

 private:
  static void add(Call& c, const CallOp& op) { c.ops[c.nops++] = op; }
  // Whether the stage `step` after (+1) or before (-1) this rank's stage of pass k exists on another rank.
  [[nodiscard]] bool remote(Pass pass, std::int64_t k, int step) const {
    const int to = s_.stage(r_, s_.chunk(pass, k)) + step;
    return to >= 0 && to < s_.p * s_.v && s_.rank_of(to) != r_;
  }

  const ScheduleShape& s_;
  int r_;
  ProgramSink& sink_;
  int next_handle_ = 0;
};

}  // namespace pipebench
