// SPDX-License-Identifier: Apache-2.0
// Interleaved zero bubble: PyTorch's ScheduleInterleavedZeroBubble (torch.distributed.pipelining, the ZB1P
// schedule of Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2.1, on v model chunks per rank):
// interleaved 1F1B's order of chunk passes (Megatron's forward table, groups of N microbatches chunk-major;
// backward k on the mirrored chunk) with each backward split into B and W. Rank r warms up with
// (v-1)N + (p-1-r) forwards, one per hop from the last rank where interleaved 1F1B takes two (the B of a
// split backward is shorter), and keeps r W passes pending in the steady phase, as ZB-H1 does; the pending
// W passes fill the cool-down. The calls are PyTorch's, posted in the order of a shared timeline
// (timeline_steps.h): 1F1B's blocking pairs of calls wait for each other across the wrap from rank p-1's
// chunk c to rank 0's chunk c+1 once the warm-ups differ by one forward per hop. Megatron does not run it: a
// reference on the interleaved plan of the same v.
#include <algorithm>
#include <utility>
#include <vector>

#include "schedule/schedule_registry.h"
#include "schedule/timeline_steps.h"
#include "schedule/zero_bubble_steps.h"

namespace pipebench {

namespace {

// N: the microbatches of a forward table's first group (the run of chunk 0 it starts with; PyTorch's
// microbatches_per_round).
std::int64_t group_size(const ScheduleShape& shape) {
  std::int64_t n = 0;
  while (n < shape.steps() && shape.chunk(Pass::kForward, n) == 0) ++n;
  return std::max<std::int64_t>(n, 1);
}

class InterleavedZb final : public TimelineGenerator {
 public:
  const char* name() const override { return "interleaved-zb"; }
  const char* summary() const override { return "zero bubble, interleaved"; }
  bool interleaves() const override { return true; }
  bool reference() const override { return true; }
  bool splits_backward() const override { return true; }
  // The Zero Bubble paper's implementation runs its schedules with optimizer post-validation (Qi et al. §4).
  StepRule step_rule() const override { return StepRule::kPostValidation; }

 private:
  std::vector<PassStep> order(const ScheduleShape& shape, int q) const override {
    PassList passes;
    ZeroBubbleWriter(shape, q, passes, (shape.v - 1) * group_size(shape) + (shape.p - 1 - q), q).run();
    return std::move(passes.steps);
  }
};

}  // namespace

PB_REGISTER_SCHEDULE(InterleavedZb);

}  // namespace pipebench
