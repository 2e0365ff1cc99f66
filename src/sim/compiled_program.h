// SPDX-License-Identifier: Apache-2.0
// A rank's program in the form the simulator plays it: 8 bytes per task instead of a Task's 48, the P2P
// ops in task order (a call's ops follow its predecessors', so no task names its first op), compute
// durations in a table (a rank runs a handful of distinct ones). predict simulates a schedule of p 64,
// v 8 and 1024 microbatches (three million tasks) ten times in its break-even search: in this form the
// tasks take 25 MB instead of 150 MB and a simulation streams a sixth of the memory.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <vector>

#include "sim/task.h"

namespace pipebench {

struct CompiledProgram {
  // A P2P op in 16 bytes instead of a P2POp's 24 (the ops are two thirds of a compiled schedule's memory, and
  // a simulation streams them all): the size is an index into `sizes` (a rank sends a few sizes).
  struct Op {
    std::int64_t tag = 0;
    std::int32_t peer = 0;
    std::uint32_t size_send = 0;  // index into sizes << 1 | send
    [[nodiscard]] bool send() const { return (size_send & 1U) != 0; }
    [[nodiscard]] std::size_t size() const { return size_send >> 1; }
  };
  struct Step {
    Task::Kind kind = Task::Kind::kCompute;
    bool blocking = true;    // kP2P
    std::uint16_t nops = 0;  // kP2P: its ops follow those of the earlier calls in `ops`
    // kCompute: index into durations; kP2P and kWait: the handle (-1: none); kCollective: the collective.
    std::int32_t arg = 0;
  };
  // steps and ops in `memory` (predict's: a HugePageArena per schedule, core/huge_page_arena.h).
  explicit CompiledProgram(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : steps(memory), ops(memory) {}
  std::pmr::vector<Step> steps;     // one per task of the source program, in its order
  std::pmr::vector<Op> ops;         // the ops of the kP2P steps, in step order
  std::vector<std::int64_t> sizes;  // distinct P2P sizes (bytes)
  std::vector<SimTime> durations;   // distinct compute durations
  [[nodiscard]] std::int64_t bytes(const Op& op) const { return sizes[op.size()]; }
  [[nodiscard]] P2POp source_op(const Op& op) const { return {op.send(), op.peer, bytes(op), op.tag}; }
  // Of the source program's ops (all of them, named by a task or not): what the simulator's choice of
  // tag matching looks at.
  std::int64_t max_tag = -1;
  std::size_t source_ops = 0;
};

// The ops in the order the calls name them (a call's ops follow its predecessors'); steps and ops in
// `memory`. Throws Error for a task whose ops lie outside the program's.
[[nodiscard]] CompiledProgram compile_program(const Program& program,
                                              std::pmr::memory_resource* memory = std::pmr::get_default_resource());
// The same, freeing the program's tasks and ops first.
[[nodiscard]] CompiledProgram compile_program(Program&& program,
                                              std::pmr::memory_resource* memory = std::pmr::get_default_resource());

}  // namespace pipebench
