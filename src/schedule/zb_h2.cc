// SPDX-License-Identifier: Apache-2.0
// ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.2, Figure 3 bottom): more forwards in
// the warm-up than 1F1B, so that the bubble before a rank's first B is filled with F passes, and W passes
// held back for the tail, where they fill the bubble of the cool-down. Rank r runs 2(p-1-r) warm-up
// forwards (twice 1F1B's; 2(p-1-r)+1 forwards before its first B) and keeps 2r W passes pending in the
// steady phase, so that every rank holds 2p-1 microbatches in flight (forward run, W not yet) at the peak,
// the paper's (2p-1) M_B. With F = B = W = t and free communication every rank then computes without a gap
// from its first pass to its last: 3mt, the paper's zero bubble ((p-1)(T_F + T_B - 2T_W) = 0, §2.2), which
// is the iteration when the optimizer step does not synchronise the ranks (§4, post-validation). One
// iteration from a cold start still takes 3mt + (p-1)t, since the last rank starts (p-1)t after the first
// (ZB-H1's time; tests/sim/schedules_test.cc). With transfer times the longer warm-up covers the waits
// where ZB-H1 idles. The calls are PyTorch's, posted in the order of a shared timeline (timeline_steps.h):
// 1F1B's blocking pairs of calls make a rank with more forwards in flight wait for its neighbour's pair and
// lose the gap-free order. Megatron does not run it: a reference on the 1F1B plan's messages.
#include <utility>
#include <vector>

#include "schedule/schedule_registry.h"
#include "schedule/timeline_steps.h"
#include "schedule/zero_bubble_steps.h"

namespace pipebench {

namespace {

class ZbH2 final : public TimelineGenerator {
 public:
  const char* name() const override { return "zb-h2"; }
  const char* summary() const override { return "zero bubble, twice the warm-up"; }
  bool interleaves() const override { return false; }
  bool reference() const override { return true; }
  bool splits_backward() const override { return true; }
  // The Zero Bubble paper's implementation runs its schedules with optimizer post-validation (Qi et al. §4).
  StepRule step_rule() const override { return StepRule::kPostValidation; }

 private:
  std::vector<PassStep> order(const ScheduleShape& shape, int q) const override {
    PassList passes;
    ZeroBubbleWriter(shape, q, passes, std::int64_t{2} * (shape.p - 1 - q), std::int64_t{2} * q).run();
    return std::move(passes.steps);
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(ZbH2);

}  // namespace pipebench
