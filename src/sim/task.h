// SPDX-License-Identifier: Apache-2.0
// Tasks: what a rank does, in order, in one iteration. Schedule generators emit them; the simulator
// gives them times. Times are integer nanoseconds (SimTime), so a simulation is exact and deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pipebench {

using SimTime = std::int64_t;  // nanoseconds

struct P2POp {
  bool send = true;
  int peer = 0;               // pipeline rank
  std::int64_t bytes = 0;
  std::int64_t tag = 0;       // a send matches the recv with the same (src, dst, tag)
};

struct Task {
  enum class Kind { kCompute, kP2P, kWait, kCollective };
  Kind kind = Kind::kCompute;
  SimTime duration = 0;       // kCompute
  std::string label;          // "F mb3 c1", "B mb0 c0", "send_forward_recv_forward", ...
  std::vector<P2POp> ops;     // kP2P
  bool blocking = true;       // kP2P: the rank waits for every op (batched + synchronised calls)
  int handle = -1;            // kP2P async: the handle a later kWait names
  int collective = -1;        // kCollective: index into the simulation's collective list
};

}  // namespace pipebench
