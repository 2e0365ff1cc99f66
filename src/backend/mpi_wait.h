// SPDX-License-Identifier: Apache-2.0
// How a rank on the MPI backend waits for its requests: one policy for `bench` (which times the
// messages a prediction uses) and `replay` (which sends them inside a schedule), so that a message
// costs the same in both. Include only where mpi.h is available (PB_HAVE_MPI).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "launch/world.h"

namespace pipebench {

// With a core per rank a waiting rank spins on MPI_Testall, as MPI_Waitall does. With more ranks on the
// node than online CPUs a spinning rank holds the core that the peer it waits for needs in order to send
// (the case Open MPI's mpi_yield_when_idle is for): it polls, yielding the core for the first kSpinNs,
// then sleeping kPollNs between polls.
class MpiWaitPolicy {
 public:
  static constexpr std::int64_t kSpinNs = 30000;
  static constexpr long kPollNs = 20000;

  explicit MpiWaitPolicy(const World& world);

  [[nodiscard]] bool sharing_cores() const { return sharing_cores_; }
  // Waits until all n requests are complete. where: the rank and host for an error.
  void wait(MPI_Request* requests, int n, const std::string& where) const;
  // One progress pass over the requests (completed ones become MPI_REQUEST_NULL); true when all are done.
  [[nodiscard]] static bool test(MPI_Request* requests, int n, const std::string& where);
  // A line for the results' versions block; "" with a core per rank.
  [[nodiscard]] std::string description(const World& world) const;

 private:
  bool sharing_cores_ = false;
};

[[nodiscard]] std::int64_t monotonic_ns();

}  // namespace pipebench
