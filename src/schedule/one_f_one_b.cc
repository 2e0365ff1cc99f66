// SPDX-License-Identifier: Apache-2.0
// 1F1B (PipeDream-Flush; Narayanan et al., SC21 §2.2), as Megatron runs it (megatron.md §3a;
// schedules.py forward_backward_pipelining_without_interleaving): warm-up forwards with recv_forward /
// send_forward, one recv_forward, then per steady step send_forward_recv_backward and
// send_backward_recv_forward (send_backward on the last), then cool-down recv_backward / send_backward.
// Every call is one batch_isend_irecv followed by a synchronisation, so it blocks.
#include "schedule/schedule_registry.h"
#include "schedule/zero_bubble_steps.h"

namespace pipebench {
namespace {

class OneFOneB final : public ScheduleGenerator {
 public:
  const char* name() const override { return "1f1b"; }
  const char* summary() const override { return "Megatron's, one chunk per rank"; }
  bool interleaves() const override { return false; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override {
    ZeroBubbleWriter(shape, r, sink, shape.warmup[static_cast<std::size_t>(r)], ZeroBubbleWriter::kWholeBackward).run();
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(OneFOneB);

}  // namespace pipebench
