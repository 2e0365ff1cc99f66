// SPDX-License-Identifier: Apache-2.0
// Interleaved 1F1B (Narayanan et al., SC21 §2.2), as Megatron runs it (megatron.md §3b; schedules.py
// forward_backward_pipelining_with_interleaving): v model chunks per rank in the order of the forward
// table, backward k on the mirrored chunk. Each receive is posted with the previous step's send (on the
// leading stage, the tensor the other end sent p-1 steps before: received()). With
// overlap (the default) the steady calls are async isend/irecv, waited for just before the step that needs
// them; without (--no-overlap-p2p-communication) one blocking 4-op
// send_forward_backward_recv_forward_backward per steady step.
#include "schedule/program_writer.h"
#include "schedule/schedule_registry.h"

namespace pipebench {
namespace {

class Writer {
 public:
  Writer(const ScheduleShape& shape, int r, ProgramSink& sink)
      : w_(shape, r, sink), s_(shape), total_(shape.steps()), warm_(shape.warmup[static_cast<std::size_t>(r)]) {
    if (r == 0 || r == shape.p - 1) k_of_ = shape.forward_step_of();
  }

  void run() {
    w_.alone(false, Pass::kForward, 0);
    for (std::int64_t k = 0; k < warm_; ++k) warmup_step(k);
    if (!s_.overlap_p2p && warm_ == total_) w_.alone(false, Pass::kBackward, 0);
    for (std::int64_t j = 0; j < total_ - warm_; ++j) steady_step(warm_ + j, j);
    w_.wait(pending_fwd_);
    for (std::int64_t k = total_ - warm_; k < total_; ++k) cooldown_step(k);
  }

 private:
  void warmup_step(std::int64_t k) {
    w_.compute(Pass::kForward, k);
    const bool last_warmup = k == warm_ - 1;
    const bool with_grad = !s_.overlap_p2p && last_warmup && warm_ < total_;
    Call c = w_.call(with_grad ? "send_forward_backward_recv_forward_backward" : "send_forward_recv_forward");
    w_.send_fwd(c, k);
    recv(c, Pass::kForward, k);
    if (with_grad) w_.recv_bwd(c, 0);
    w_.issue(c);
    if (s_.overlap_p2p && last_warmup)  // pre-posts the first grad receive, async
      pending_bwd_ = w_.alone(false, Pass::kBackward, 0, true, "send_backward_recv_backward");
  }

  // Forward k, backward j.
  void steady_step(std::int64_t k, std::int64_t j) {
    if (!s_.overlap_p2p) {
      w_.compute(Pass::kForward, k);
      w_.compute(Pass::kBackward, j);
      Call c = w_.call("send_forward_backward_recv_forward_backward");
      w_.send_fwd(c, k);
      w_.send_bwd(c, j);
      recv(c, Pass::kForward, k);
      recv(c, Pass::kBackward, j);
      w_.issue(c);
      return;
    }
    w_.wait(pending_fwd_);
    w_.compute(Pass::kForward, k);
    Call f = w_.call("send_forward_recv_forward", true);
    w_.send_fwd(f, k);
    recv(f, Pass::kForward, k);
    pending_fwd_ = w_.issue(f);
    w_.wait(pending_bwd_);
    w_.compute(Pass::kBackward, j);
    Call b = w_.call("send_backward_recv_backward", true);
    w_.send_bwd(b, j);
    recv(b, Pass::kBackward, j);
    pending_bwd_ = w_.issue(b);
  }

  void cooldown_step(std::int64_t k) {
    w_.wait(pending_bwd_);
    pending_bwd_ = -1;
    w_.compute(Pass::kBackward, k);
    Call c = w_.call("send_backward_recv_backward");
    w_.send_bwd(c, k);
    recv(c, Pass::kBackward, k);
    w_.issue(c);
  }

  // The receive of step k (Megatron's recv_tensor_from_previous_stage, megatron.md §3b), none after the last
  // step: pass k+1's input on every rank but the leading stage (rank 0 forward, rank p-1 backward). That one
  // takes what the other end sent p-1 steps before, for the chunk after the sender's (none after the last),
  // and keeps it until its pass. With groups of N = p microbatches that is pass k+1's input too; with N > p
  // it arrives N-p steps before its pass, and waiting for pass k+1's would hold the sender's call.
  void recv(Call& c, Pass pass, std::int64_t k) const {
    if (k + 1 >= total_) return;
    const bool forward = pass == Pass::kForward;
    std::int64_t input = k + 1;
    if (w_.rank() == (forward ? 0 : s_.p - 1)) {
      const std::int64_t sent = k - (s_.p - 1);
      const int chunk = sent < 0 ? s_.v - 1 : s_.chunk(Pass::kForward, sent);
      if (chunk == s_.v - 1) return;
      input = k_of_[static_cast<std::size_t>(s_.microbatch(sent) * s_.v + chunk + 1)];
    }
    if (forward) {
      w_.recv_fwd(c, input);
    } else {
      w_.recv_bwd(c, input);
    }
  }

  ProgramWriter w_;
  const ScheduleShape& s_;
  std::int64_t total_, warm_;
  std::vector<std::int64_t> k_of_;  // the leading stages': (microbatch x v + chunk) -> forward step
  int pending_fwd_ = -1, pending_bwd_ = -1;
};

class Interleaved final : public ScheduleGenerator {
 public:
  const char* name() const override { return "interleaved"; }
  const char* summary() const override { return "Megatron's, N chunks per rank"; }
  bool interleaves() const override { return true; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override { Writer(shape, r, sink).run(); }
};

}  // namespace

PB_REGISTER_SCHEDULE(Interleaved);

}  // namespace pipebench
