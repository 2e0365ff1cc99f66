// SPDX-License-Identifier: Apache-2.0
// 1F1B (PipeDream-Flush; Narayanan et al., SC21 §2.2), as Megatron runs it (megatron.md §3a;
// schedules.py forward_backward_pipelining_without_interleaving): warm-up forwards with recv_forward /
// send_forward, one recv_forward, then per steady step send_forward_recv_backward and
// send_backward_recv_forward (send_backward on the last), then cool-down recv_backward / send_backward.
// Every call is one batch_isend_irecv followed by a synchronisation, so it blocks.
#include "schedule/program_writer.h"
#include "schedule/schedule_registry.h"
#include "schedule/steps.h"

namespace pipebench {
namespace {

class OneFOneB final : public ScheduleGenerator {
 public:
  const char* name() const override { return "1f1b"; }
  bool interleaves() const override { return false; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override {
    ProgramWriter w(shape, r, sink);
    const std::int64_t total = shape.steps();
    const std::int64_t warm = shape.warmup[static_cast<std::size_t>(r)], rest = total - warm;
    for (std::int64_t i = 0; i < warm; ++i) blocking_step(w, Pass::kForward, i);
    if (rest > 0) {
      Call in = w.call("recv_forward");
      w.recv_fwd(in, warm);
      w.issue(in);
    }
    for (std::int64_t i = 0; i < rest; ++i) {
      w.compute(Pass::kForward, warm + i);
      Call a = w.call("send_forward_recv_backward");
      w.send_fwd(a, warm + i);
      w.recv_bwd(a, i);
      w.issue(a);
      w.compute(Pass::kBackward, i);
      const bool more = i + 1 < rest;
      Call b = w.call(more ? "send_backward_recv_forward" : "send_backward");
      w.send_bwd(b, i);
      if (more) w.recv_fwd(b, warm + i + 1);
      w.issue(b);
    }
    for (std::int64_t i = rest; i < total; ++i) blocking_step(w, Pass::kBackward, i);
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(OneFOneB);

}  // namespace pipebench
