// SPDX-License-Identifier: Apache-2.0
// Bare reference loops for `make bench`: the least code that times an all_reduce, so the harness can
// be held to it (busbw within 2% at >= 64 MiB; with -G, 8-byte latency within 1 us).
#pragma once

#include <cstddef>
#include <memory>

#include "launch/world.h"

namespace pipebench {

// ncclAllReduce (float, sum) on every GPU of this process in one group, `iters` per batch between two
// CUDA events, optionally captured once in a CUDA graph. Returns the median per-op time in us.
class BareNcclLoop {
 public:
  explicit BareNcclLoop(int gpus);  // throws Error (no NCCL in this build, no GPU)
  ~BareNcclLoop();
  BareNcclLoop(const BareNcclLoop&) = delete;
  BareNcclLoop& operator=(const BareNcclLoop&) = delete;
  [[nodiscard]] double median_us(std::size_t bytes, int iters, int reps, bool graph);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// MPI_Allreduce (float, sum) over MPI_COMM_WORLD, steady clock around `iters` calls after a barrier,
// the maximum over ranks per batch. Returns the median per-op time in us.
[[nodiscard]] double bare_mpi_allreduce_median_us(const World& world, std::size_t bytes, int iters, int reps);

}  // namespace pipebench
