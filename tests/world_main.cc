// SPDX-License-Identifier: Apache-2.0
// main() of the MPI tests (run under mpirun -np 2 and -np 4) and the GPU tests: one World for the whole run; only rank
// 0 prints gtest's report, every rank's result decides the exit status.
#include <gtest/gtest.h>

#include <memory>

#include "test_world.h"

namespace pipebench::testing {
namespace {
const World* g_world = nullptr;  // set once in main before any test runs, read-only afterwards
}
const World& world() { return *g_world; }
}  // namespace pipebench::testing

int main(int argc, char** argv) {
  auto world = pipebench::World::create(&argc, &argv);
  pipebench::testing::g_world = world.get();
  ::testing::InitGoogleTest(&argc, argv);
  if (world->rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  // A failure on any rank fails the run on every rank.
  return world->all(rc == 0) ? 0 : 1;
}
