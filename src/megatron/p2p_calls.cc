// SPDX-License-Identifier: Apache-2.0
// P2P calls: the loops of schedules.py forward_backward_pipelining_without_interleaving and
// forward_backward_pipelining_with_interleaving (megatron.md §3a, §3b), ops only.
#include "megatron/p2p_calls.h"

#include <vector>

#include "megatron/plan.h"

namespace pipebench {
namespace {

class Calls {
 public:
  Calls(const MegatronArgs& a, const Layout& l, int v, int r, const std::function<void(const P2PCall&)>& f)
      : p_(l.pp), v_(v), r_(r), overlap_(a.overlap_p2p), f_(f) {
    for (const auto& e : forward_table(a, l, v)) chunk_.push_back(e.second);
    total_ = static_cast<std::int64_t>(chunk_.size());
    w_ = warmup_microbatches(a, l, v, r);
  }

  void run() {
    if (v_ > 1) {
      interleaved();
    } else {
      one_f_one_b();
    }
  }

 private:
  int cf(std::int64_t k) const { return chunk_[static_cast<std::size_t>(k)]; }
  int cb(std::int64_t k) const { return v_ - 1 - cf(k); }

  // §2 Peers: only the global first virtual stage (r 0, chunk 0) has no input to receive or grad to send,
  // only the global last (r p-1, chunk v-1) no output to send or grad to receive.
  void recv_fwd(P2PCall& c, std::int64_t k) const {
    if (!(r_ == 0 && cf(k) == 0)) c.ops[c.nops++] = {false, false, k};
  }
  void send_fwd(P2PCall& c, std::int64_t k) const {
    if (!(r_ == p_ - 1 && cf(k) == v_ - 1)) c.ops[c.nops++] = {true, false, k};
  }
  void recv_bwd(P2PCall& c, std::int64_t k) const {
    if (!(r_ == p_ - 1 && cb(k) == v_ - 1)) c.ops[c.nops++] = {false, true, k};
  }
  void send_bwd(P2PCall& c, std::int64_t k) const {
    if (!(r_ == 0 && cb(k) == 0)) c.ops[c.nops++] = {true, true, k};
  }
  P2PCall call(const char* name, bool async = false) const {
    P2PCall c;
    c.name = name;
    c.batched = v_ == 1 || !overlap_;  // batch_p2p_comm = not overlap_p2p_comm (§2)
    c.async = async;
    return c;
  }
  void emit(const P2PCall& c) const {
    if (c.nops > 0) f_(c);
  }

  // §3a: recv_forward / send_forward in warm-up, one recv_forward, then per steady step
  // send_forward_recv_backward and send_backward_recv_forward (send_backward on the last), then
  // recv_backward / send_backward in cool-down. Every call is one batch_isend_irecv.
  void one_f_one_b() {
    const std::int64_t rest = total_ - w_;
    for (std::int64_t i = 0; i < w_; ++i) {
      P2PCall in = call("recv_forward"), out = call("send_forward");
      recv_fwd(in, i);
      send_fwd(out, i);
      emit(in);
      emit(out);
    }
    if (rest > 0) {
      P2PCall in = call("recv_forward");
      recv_fwd(in, w_);
      emit(in);
    }
    for (std::int64_t i = 0; i < rest; ++i) {
      P2PCall a = call("send_forward_recv_backward");
      send_fwd(a, w_ + i);
      recv_bwd(a, i);
      emit(a);
      P2PCall b = call(i + 1 < rest ? "send_backward_recv_forward" : "send_backward");
      send_bwd(b, i);
      if (i + 1 < rest) recv_fwd(b, w_ + i + 1);
      emit(b);
    }
    for (std::int64_t i = rest; i < total_; ++i) {
      P2PCall in = call("recv_backward"), out = call("send_backward");
      recv_bwd(in, i);
      send_bwd(out, i);
      emit(in);
      emit(out);
    }
  }

  // §3b: each receive is posted with the previous step's send. With overlap the steady calls are async
  // isend/irecv; without, one 4-op send_forward_backward_recv_forward_backward per steady step.
  void interleaved() {
    const std::int64_t rest = total_ - w_;
    P2PCall first = call("recv_forward");
    recv_fwd(first, 0);
    emit(first);
    for (std::int64_t k = 0; k < w_; ++k) {
      const bool last_warmup = k == w_ - 1;
      P2PCall c = call("send_forward_recv_forward");
      send_fwd(c, k);
      if (k + 1 < total_) recv_fwd(c, k + 1);
      if (!overlap_ && last_warmup && w_ < total_) {
        c.name = "send_forward_backward_recv_forward_backward";
        recv_bwd(c, 0);
      }
      emit(c);
      if (overlap_ && last_warmup) {  // pre-posts the first grad receive, async
        P2PCall g = call("send_backward_recv_backward", true);
        recv_bwd(g, 0);
        emit(g);
      }
    }
    if (!overlap_ && w_ == total_) {
      P2PCall g = call("recv_backward");
      recv_bwd(g, 0);
      emit(g);
    }
    for (std::int64_t j = 0; j < rest; ++j) steady(w_ + j, j);
    for (std::int64_t k = rest; k < total_; ++k) {
      P2PCall c = call("send_backward_recv_backward");
      send_bwd(c, k);
      if (k + 1 < total_) recv_bwd(c, k + 1);
      emit(c);
    }
  }

  // Steady step: forward k, backward j.
  void steady(std::int64_t k, std::int64_t j) {
    if (overlap_) {
      P2PCall f = call("send_forward_recv_forward", true);
      send_fwd(f, k);
      if (k + 1 < total_) recv_fwd(f, k + 1);
      emit(f);
      P2PCall b = call("send_backward_recv_backward", true);
      send_bwd(b, j);
      if (j + 1 < total_) recv_bwd(b, j + 1);
      emit(b);
      return;
    }
    P2PCall c = call("send_forward_backward_recv_forward_backward");
    send_fwd(c, k);
    send_bwd(c, j);
    if (k + 1 < total_) recv_fwd(c, k + 1);
    if (j + 1 < total_) recv_bwd(c, j + 1);
    emit(c);
  }

  int p_, v_, r_;
  bool overlap_;
  const std::function<void(const P2PCall&)>& f_;
  std::vector<int> chunk_;
  std::int64_t total_ = 0, w_ = 0;
};

}  // namespace

void for_each_p2p_call(const MegatronArgs& a, const Layout& l, int v, int r,
                       const std::function<void(const P2PCall&)>& f) {
  if (l.pp <= 1) return;
  Calls(a, l, v, r, f).run();
}

}  // namespace pipebench
