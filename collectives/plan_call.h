// SPDX-License-Identifier: Apache-2.0
// How a plan message's call is made: the one rule by which `bench --plan` times it and `replay` issues it,
// so that what replay runs is what bench timed.
#pragma once

#include "collectives/op.h"

namespace pipebench {

struct PlanCall {
  RedOp redop = RedOp::kNone;
  bool in_place = false;
};

// A sum where the op reduces (the plan keeps no reduction: found_inf's MAX of one float costs what a SUM
// does), none elsewhere; in place where Megatron issues the op in place (OpTraits::megatron_in_place) and the op
// can be (the cost model prefers the same placement).
[[nodiscard]] inline PlanCall plan_call(const Op& op) {
  return {op.traits().reduces ? RedOp::kSum : RedOp::kNone,
          op.traits().supports_in_place && op.traits().megatron_in_place};
}

}  // namespace pipebench
