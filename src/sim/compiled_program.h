// SPDX-License-Identifier: Apache-2.0
// A rank's program in the form the simulator plays it: 8 bytes per task instead of a Task's 48, the P2P
// ops in task order (a call's ops follow its predecessors', so no task names its first op), compute
// durations in a table (a rank runs a handful of distinct ones). predict simulates a schedule of p 64,
// v 8 and 1024 microbatches (three million tasks) ten times in its break-even search: in this form the
// tasks take 25 MB instead of 150 MB and a simulation streams a sixth of the memory.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/task.h"

namespace pipebench {

struct CompiledProgram {
  struct Step {
    Task::Kind kind = Task::Kind::kCompute;
    bool blocking = true;    // kP2P
    std::uint16_t nops = 0;  // kP2P: its ops follow those of the earlier calls in `ops`
    // kCompute: index into durations; kP2P and kWait: the handle (-1: none); kCollective: the collective.
    std::int32_t arg = 0;
  };
  std::vector<Step> steps;         // one per task of the source program, in its order
  std::vector<P2POp> ops;          // the ops of the kP2P steps, in step order
  std::vector<SimTime> durations;  // distinct compute durations
  // Of the source program's ops (all of them, named by a task or not): what the simulator's choice of
  // tag matching looks at.
  std::int64_t max_tag = -1;
  std::size_t source_ops = 0;
};

// Moves the ops when the program's calls name them in order (every generated program), else copies them
// in task order. Throws Error for a task whose ops lie outside the program's.
[[nodiscard]] CompiledProgram compile_program(Program&& program);
[[nodiscard]] CompiledProgram compile_program(const Program& program);

}  // namespace pipebench
