// SPDX-License-Identifier: Apache-2.0
// Megatron's order of operations per rank (schedules.py), as task lists.
#include "sim/schedules.h"

namespace pipebench {
namespace {

// Virtual stage g = c*p + r. An activation of microbatch mb goes to stage g+1, a grad to stage g-1.
// Dense in [0, 2 m p v), so the simulator can match transfers through an array.
std::int64_t tag(bool grad, std::int64_t mb, int to_stage, int stages) {
  return (mb * stages + to_stage) * 2 + (grad ? 1 : 0);
}

// The ops of one Megatron call: at most four (send/recv prev/next), kept off the heap.
struct OpList {
  P2POp v[4];
  std::size_t n = 0;
  void push_back(const P2POp& op) { v[n++] = op; }
  [[nodiscard]] bool empty() const { return n == 0; }
};

class Gen {
 public:
  Gen(const ScheduleSpec& s, int r) : s_(s), r_(r), stages_(s.p * s.v) {}

  Program run() {
    prog_.tasks.reserve(static_cast<std::size_t>(s_.m * s_.v) * 6 + 8);
    prog_.ops.reserve(static_cast<std::size_t>(s_.m * s_.v) * 4 + 8);
    switch (s_.kind) {
      case ScheduleKind::kGpipe:
        gpipe();
        break;
      case ScheduleKind::kOneFOneB:
        one_f_one_b();
        break;
      case ScheduleKind::kInterleaved:
        interleaved();
        break;
    }
    return std::move(prog_);
  }

 private:
  int stage(int c) const { return c * s_.p + r_; }
  int prev_rank() const { return (r_ - 1 + s_.p) % s_.p; }
  int next_rank() const { return (r_ + 1) % s_.p; }

  // The four P2P ops of forward/backward step (mb, chunk c); none where Megatron skips them (§2 Peers).
  void fwd_recv(OpList& ops, std::int64_t mb, int c) const {
    if (stage(c) > 0) ops.push_back({false, prev_rank(), s_.p2p_bytes, tag(false, mb, stage(c), stages_)});
  }
  void fwd_send(OpList& ops, std::int64_t mb, int c) const {
    if (stage(c) < stages_ - 1) ops.push_back({true, next_rank(), s_.p2p_bytes, tag(false, mb, stage(c) + 1, stages_)});
  }
  void bwd_recv(OpList& ops, std::int64_t mb, int c) const {
    if (stage(c) < stages_ - 1) ops.push_back({false, next_rank(), s_.p2p_bytes, tag(true, mb, stage(c), stages_)});
  }
  void bwd_send(OpList& ops, std::int64_t mb, int c) const {
    if (stage(c) > 0) ops.push_back({true, prev_rank(), s_.p2p_bytes, tag(true, mb, stage(c) - 1, stages_)});
  }

  void compute(bool forward, std::int64_t mb, int c) {
    Task t;
    t.kind = Task::Kind::kCompute;
    t.duration = (forward ? s_.fwd : s_.bwd)[static_cast<std::size_t>(r_)][static_cast<std::size_t>(c)];
    t.forward = forward;
    t.mb = mb;
    t.chunk = c;
    prog_.tasks.push_back(t);
  }
  void p2p(const OpList& ops, const char* label, bool blocking = true) {
    if (ops.empty() && blocking) return;
    Task t;
    t.name = label;
    t.blocking = blocking;
    if (!blocking) t.handle = next_handle_++;
    prog_.add_p2p(t, ops.v, ops.n);
  }
  int last_handle() const { return next_handle_ - 1; }
  void wait(int handle) {
    if (handle < 0) return;
    Task t;
    t.kind = Task::Kind::kWait;
    t.handle = handle;
    t.name = "wait";
    prog_.tasks.push_back(t);
  }

  // recv_forward, F, send_forward (or recv_backward, B, send_backward), each call blocking.
  void blocking_step(bool forward, std::int64_t mb) {
    OpList in, out;
    if (forward) {
      fwd_recv(in, mb, 0);
      fwd_send(out, mb, 0);
    } else {
      bwd_recv(in, mb, 0);
      bwd_send(out, mb, 0);
    }
    p2p(in, forward ? "recv_forward" : "recv_backward");
    compute(forward, mb, 0);
    p2p(out, forward ? "send_forward" : "send_backward");
  }

  void gpipe() {
    for (std::int64_t mb = 0; mb < s_.m; ++mb) {
      blocking_step(true, mb);
    }
    for (std::int64_t mb = 0; mb < s_.m; ++mb) {
      blocking_step(false, mb);
    }
  }

  // §3a: every call is batched and cuda-synchronised, so it blocks.
  void one_f_one_b() {
    const std::int64_t w = s_.warmup[static_cast<std::size_t>(r_)], rest = s_.m - w;
    for (std::int64_t i = 0; i < w; ++i) blocking_step(true, i);
    if (rest > 0) {
      OpList in;
      fwd_recv(in, w, 0);
      p2p(in, "recv_forward");
    }
    for (std::int64_t i = 0; i < rest; ++i) {
      compute(true, w + i, 0);
      OpList a;
      fwd_send(a, w + i, 0);
      bwd_recv(a, i, 0);
      p2p(a, "send_forward_recv_backward");
      compute(false, i, 0);
      OpList b;
      bwd_send(b, i, 0);
      if (i + 1 < rest) fwd_recv(b, w + i + 1, 0);
      p2p(b, i + 1 < rest ? "send_backward_recv_forward" : "send_backward");
    }
    for (std::int64_t i = rest; i < s_.m; ++i) blocking_step(false, i);
  }

  // §3b. Backward k takes table entry k with chunk v-1-c.
  void interleaved() {
    const auto& tab = s_.table;
    const auto total = static_cast<std::int64_t>(tab.size());
    const std::int64_t w = s_.warmup[static_cast<std::size_t>(r_)], rest = total - w;
    auto fmb = [&](std::int64_t k) { return tab[static_cast<std::size_t>(k)].first; };
    auto fc = [&](std::int64_t k) { return tab[static_cast<std::size_t>(k)].second; };
    auto bc = [&](std::int64_t k) { return s_.v - 1 - tab[static_cast<std::size_t>(k)].second; };
    {
      OpList in;
      fwd_recv(in, fmb(0), fc(0));
      p2p(in, "recv_forward");
    }
    int pending_bwd = -1, pending_fwd = -1;
    for (std::int64_t k = 0; k < w; ++k) {
      compute(true, fmb(k), fc(k));
      OpList ops;
      fwd_send(ops, fmb(k), fc(k));
      if (k + 1 < total) fwd_recv(ops, fmb(k + 1), fc(k + 1));
      const bool last_warmup = k == w - 1;
      const bool with_grad = !s_.overlap_p2p && last_warmup && w < total;
      if (with_grad) bwd_recv(ops, fmb(0), bc(0));
      p2p(ops, with_grad ? "send_forward_backward_recv_forward_backward" : "send_forward_recv_forward");
      if (s_.overlap_p2p && last_warmup) {  // pre-post the first grad receive, async
        OpList g;
        bwd_recv(g, fmb(0), bc(0));
        p2p(g, "send_backward_recv_backward", false);
        pending_bwd = last_handle();
      }
    }
    if (!s_.overlap_p2p && w == total) {
      OpList g;
      bwd_recv(g, fmb(0), bc(0));
      p2p(g, "recv_backward");
    }
    for (std::int64_t j = 0; j < rest; ++j) {
      const std::int64_t k = w + j;
      if (s_.overlap_p2p) {
        wait(pending_fwd);
        compute(true, fmb(k), fc(k));
        OpList f;
        fwd_send(f, fmb(k), fc(k));
        if (k + 1 < total) fwd_recv(f, fmb(k + 1), fc(k + 1));
        p2p(f, "send_forward_recv_forward", false);
        pending_fwd = last_handle();
        wait(pending_bwd);
        compute(false, fmb(j), bc(j));
        OpList b;
        bwd_send(b, fmb(j), bc(j));
        if (j + 1 < total) bwd_recv(b, fmb(j + 1), bc(j + 1));
        p2p(b, "send_backward_recv_backward", false);
        pending_bwd = last_handle();
      } else {
        compute(true, fmb(k), fc(k));
        compute(false, fmb(j), bc(j));
        OpList ops;
        fwd_send(ops, fmb(k), fc(k));
        bwd_send(ops, fmb(j), bc(j));
        if (k + 1 < total) fwd_recv(ops, fmb(k + 1), fc(k + 1));
        if (j + 1 < total) bwd_recv(ops, fmb(j + 1), bc(j + 1));
        p2p(ops, "send_forward_backward_recv_forward_backward");
      }
    }
    wait(pending_fwd);
    for (std::int64_t k = rest; k < total; ++k) {
      wait(pending_bwd);
      pending_bwd = -1;
      compute(false, fmb(k), bc(k));
      OpList ops;
      bwd_send(ops, fmb(k), bc(k));
      if (k + 1 < total) bwd_recv(ops, fmb(k + 1), bc(k + 1));
      p2p(ops, "send_backward_recv_backward");
    }
  }

  const ScheduleSpec& s_;
  int r_;
  int stages_;
  int next_handle_ = 0;
  Program prog_;
};

}  // namespace

std::vector<Program> generate_schedule(const ScheduleSpec& spec) {
  std::vector<Program> out;
  for (int r = 0; r < spec.p; ++r) out.push_back(Gen(spec, r).run());
  return out;
}

}  // namespace pipebench
