// SPDX-License-Identifier: Apache-2.0
// Whether the programs of a pipeline can finish, found without running them: every rank's steps played in
// order with no time at all, a blocking call going on only once each of its ops has met its counterpart on
// the peer (a send its receive, a receive its send: Megatron's batch_isend_irecv followed by a
// synchronisation), an async call going on at once and its wait only once its ops have met theirs. If
// ranks are left that cannot go on, the schedule deadlocks whatever the costs.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "schedule/program.h"

namespace pipebench {

struct Deadlock {
  int rank = 0;          // the lowest pipeline rank left waiting
  std::size_t step = 0;  // its step that waits (0-based, counting every compute, call and wait it emits)
  // The first op of that step that found no counterpart: a send or receive of an activation or gradient.
  bool send = false, grad = false;
  std::int64_t microbatch = 0;
  int to_stage = 0;  // the stage that receives it
  // The same in words: "the gradient of microbatch 1 from stage 1 to stage 0" (a receive), "rank 1 to receive the
  // activation of microbatch 0 from stage 0 to stage 1" (a send).
  std::string waits_for;
};

// Plays the programs that emit(r, sink) writes for r < shape.p. Transfers are told apart as the simulator's
// tags do (direction, microbatch, receiving stage = chunk x p + rank).
[[nodiscard]] std::optional<Deadlock> find_deadlock(const ScheduleShape& shape,
                                                    const std::function<void(int r, ProgramSink& sink)>& emit);

}  // namespace pipebench
