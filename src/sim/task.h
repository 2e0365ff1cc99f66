// SPDX-License-Identifier: Apache-2.0
// Tasks: what a rank does, in order, in one iteration. Schedule generators emit them; the simulator
// gives them times. Times are integer nanoseconds (SimTime), so a simulation is exact and deterministic.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "schedule/program.h"

namespace pipebench {

using SimTime = std::int64_t;  // nanoseconds

// Limits of one simulation (README "Limits"). A task or message longer than 1000 s is no measured or
// assumed cost of a real link or layer (a table with time_us 1e308, --link-gbps 1e-300); with at most
// kMaxSimTasks tasks per schedule the iteration's sum stays far inside int64 nanoseconds, and the memory
// stays in the hundreds of MB.
inline constexpr double kMaxTaskMs = 1e6;
inline constexpr std::int64_t kMaxSimTasks = std::int64_t{1} << 21;

// The duration `ms` in integer nanoseconds; UsageError naming `what` unless it is finite and in
// [0, kMaxTaskMs]. The message prints %g (never a 309-digit number).
[[nodiscard]] inline SimTime checked_ns_from_ms(double ms, const std::string& what) {
  if (!std::isfinite(ms) || ms < 0 || ms > kMaxTaskMs) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ": %.4g ms is not a duration the simulator plays (0 to %.0e ms)", ms, kMaxTaskMs);
    throw UsageError(what + buf);
  }
  return static_cast<SimTime>(std::llround(ms * 1e6));
}

struct P2POp {
  bool send = true;
  int peer = 0;  // pipeline rank
  std::int64_t bytes = 0;
  std::int64_t tag = 0;  // unique per transfer of an iteration: a send matches the recv with its tag
};

// Kept small (a large simulation holds millions): P2P ops live in the rank's Program, labels are
// formatted only when a trace is kept.
struct Task {
  enum class Kind : std::uint8_t { kCompute, kP2P, kWait, kCollective };
  Kind kind = Kind::kCompute;
  Pass pass = Pass::kForward;  // kCompute of a microbatch step (and the kCollective issued in it)
  bool blocking = true;        // kP2P: the rank waits for every op (batched + synchronised calls)
  std::uint8_t nops = 0;       // kP2P: ops [first_op, first_op + nops) of the Program
  int chunk = 0;
  int handle = -1;      // kP2P async: the handle a later kWait names
  int collective = -1;  // kCollective: index into the simulation's collective list
  std::uint32_t first_op = 0;
  std::int64_t mb = -1;
  SimTime duration = 0;   // kCompute
  const char* name = "";  // kP2P: the Megatron call ("send_forward_recv_forward"), or a fixed label

  [[nodiscard]] std::string label() const {
    if (kind == Kind::kCompute && mb >= 0) {
      return pass_letter(pass) + (" mb" + std::to_string(mb)) + " c" + std::to_string(chunk);
    }
    return name;
  }
};

// One rank's tasks and the P2P ops they post.
struct Program {
  std::vector<Task> tasks;
  std::vector<P2POp> ops;

  void add_p2p(Task t, const P2POp* call_ops, std::size_t n) {
    t.kind = Task::Kind::kP2P;
    t.first_op = static_cast<std::uint32_t>(ops.size());
    t.nops = static_cast<std::uint8_t>(n);
    ops.insert(ops.end(), call_ops, call_ops + n);
    tasks.push_back(t);
  }
};

}  // namespace pipebench
