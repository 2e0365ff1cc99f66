// SPDX-License-Identifier: Apache-2.0
// Steps more than one generator takes.
#pragma once

#include <cstdint>

#include "schedule/program_writer.h"

namespace pipebench {

// recv_forward, F, send_forward (or recv_backward, B, send_backward), each call blocking: GPipe's steps and
// 1F1B's warm-up and cool-down (schedules.py forward_backward_pipelining_without_interleaving).
inline void blocking_step(ProgramWriter& w, Pass pass, std::int64_t k) {
  const bool forward = pass == Pass::kForward;
  Call in = w.call(forward ? "recv_forward" : "recv_backward");
  Call out = w.call(forward ? "send_forward" : "send_backward");
  if (forward) {
    w.recv_fwd(in, k);
    w.send_fwd(out, k);
  } else {
    w.recv_bwd(in, k);
    w.send_bwd(out, k);
  }
  w.issue(in);
  w.compute(pass, k);
  w.issue(out);
}

}  // namespace pipebench
