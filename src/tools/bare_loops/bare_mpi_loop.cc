// SPDX-License-Identifier: Apache-2.0
// The bare MPI reference loop of `make bench`.
#include <chrono>
#include <cstdlib>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "launch/mpi_check.h"
#include "tools/bare_loops/bare_loop.h"

namespace pipebench {

double bare_mpi_allreduce_median_us(const World& world, std::size_t bytes, int iters, int reps) {
  const std::size_t count = bytes / sizeof(float);
  std::vector<float> send(count, 1.0f), recv(count, 0.0f);
  auto once = [&] {
    check_mpi(MPI_Allreduce(send.data(), recv.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce", world.where());
  };
  for (int i = 0; i < 2; ++i) once();
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    world.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) once();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    samples.push_back(world.max(s) * 1e6 / iters);
  }
  return summarize(samples).median_us;
}

}  // namespace pipebench
