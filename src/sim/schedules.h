// SPDX-License-Identifier: Apache-2.0
// The schedules' programs as the simulator and the replay run them: each registered generator's steps
// (schedule/schedule_registry.h) with the durations, peers, byte counts and transfer tags of one pipeline.
// The generators know the order of operations and which calls block; this file adds how long each compute
// step takes and which transfer each op is.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/program.h"
#include "schedule/schedule_id.h"
#include "sim/task.h"

namespace pipebench {

struct ScheduleSpec {
  ScheduleId id;               // its generator; id.v is shape.v
  ScheduleShape shape;         // megatron_shape (megatron/plan.h); its placement the generator's
  std::int64_t p2p_bytes = 0;  // one activation (= one activation grad)
  // Compute per microbatch and chunk: fwd[r][c], bwd[r][c] in ns. For a generator that splits the
  // backward, bwd is B (activation gradient) and wgt W (weight gradient); otherwise bwd is B + W and wgt
  // is empty.
  std::vector<std::vector<SimTime>> fwd, bwd, wgt;
};

// The program of every pipeline rank. Tags encode (direction, microbatch, receiving virtual stage). Throws
// UsageError for a schedule no generator has, Error for a shape whose placement is not the generator's or for
// a generator that splits the backward without W times.
[[nodiscard]] std::vector<Program> generate_schedule(const ScheduleSpec& spec);
// The same programs, each handed to `take` (rank order) as soon as it is generated, so that a caller that
// keeps a smaller form (sim/compiled_program.h) never holds every rank's tasks at once.
void generate_schedule(const ScheduleSpec& spec, const std::function<void(int rank, Program& program)>& take);

}  // namespace pipebench
