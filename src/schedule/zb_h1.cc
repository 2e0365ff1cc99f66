// SPDX-License-Identifier: Apache-2.0
// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.1, Figure 3 top): 1F1B's warm-up
// (p-1-r forwards on rank r) with B and W split, rank r keeping r W passes pending, so that every rank
// holds at most p microbatches in flight (forward run, W not yet), 1F1B's peak on rank 0. With F = B = W = t
// and free communication an iteration takes 3mt + (p-1)t (§2.1: the bubble is (p-1)(T_F + T_B - T_W)),
// against 1F1B's 3(m + p - 1)t. Megatron does not run it: a reference on the 1F1B plan's messages.
#include "schedule/schedule_registry.h"
#include "schedule/zero_bubble_steps.h"

namespace pipebench {
namespace {

class ZbH1 final : public ScheduleGenerator {
 public:
  const char* name() const override { return "zb-h1"; }
  const char* summary() const override { return "zero bubble, 1F1B warm-up"; }
  bool interleaves() const override { return false; }
  bool reference() const override { return true; }
  bool splits_backward() const override { return true; }
  // The Zero Bubble paper's implementation runs its schedules with optimizer post-validation (Qi et al. §4).
  StepRule step_rule() const override { return StepRule::kPostValidation; }
  void emit(const ScheduleShape& shape, int r, ProgramSink& sink) const override {
    ZeroBubbleWriter(shape, r, sink, shape.p - 1 - r, r).run();
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(ZbH1);

}  // namespace pipebench
