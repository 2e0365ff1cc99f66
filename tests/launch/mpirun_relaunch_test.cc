// SPDX-License-Identifier: Apache-2.0
#include "launch/mpirun_relaunch.h"

#include <gtest/gtest.h>
#include <sched.h>

namespace pipebench {
namespace {

TEST(MpirunRelaunch, OversubscribeOnlyWhereRanksExceedTheCores) {
  const std::vector<std::string> args = {"pairs", "--sizes", "8"};
  EXPECT_EQ(mpirun_words("/usr/bin/mpirun", 4, 2, "/x/pipebench", args),
            (std::vector<std::string>{"/usr/bin/mpirun", "-np", "4", "--oversubscribe", "/x/pipebench", "pairs",
                                      "--sizes", "8"}));
  EXPECT_EQ(mpirun_words("/usr/bin/mpirun", 4, 4, "/x/pipebench", args),
            (std::vector<std::string>{"/usr/bin/mpirun", "-np", "4", "/x/pipebench", "pairs", "--sizes", "8"}));
  EXPECT_EQ(mpirun_words("mpirun", 2, 16, "pb", {}), (std::vector<std::string>{"mpirun", "-np", "2", "pb"}));
}

TEST(MpirunRelaunch, PhysicalCoresAreAtLeastOneAndAtMostTheCpusThisProcessMayUse) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cores = physical_cores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores, CPU_COUNT(&allowed));
}

}  // namespace
}  // namespace pipebench
