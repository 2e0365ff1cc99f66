// SPDX-License-Identifier: Apache-2.0
// A hand-built spec's backward for a generator that runs B and W apart (splits_backward): W half of it
// (rounded down) and B the rest, the default share (--w-share 0.5) that build_schedule would give it.
#pragma once

#include "schedule/schedule_registry.h"
#include "sim/schedules.h"

namespace pipebench::testing {

inline void split_backward_in_halves(ScheduleSpec& s) {
  if (!schedule_generator(s.id).splits_backward()) return;
  s.wgt = s.bwd;
  for (std::size_t r = 0; r < s.bwd.size(); ++r) {
    for (std::size_t c = 0; c < s.bwd[r].size(); ++c) {
      s.wgt[r][c] = s.bwd[r][c] / 2;
      s.bwd[r][c] -= s.wgt[r][c];
    }
  }
}

}  // namespace pipebench::testing
