// SPDX-License-Identifier: Apache-2.0
#include "service/nccl_tests_mode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pipebench {
namespace {

TEST(NcclTestsMode, BinaryNamesMapToOps) {
  EXPECT_EQ(nccl_tests_binary_op("/opt/x/all_reduce_perf"), "all_reduce");
  EXPECT_EQ(nccl_tests_binary_op("alltoall_perf"), "alltoall");
  EXPECT_EQ(nccl_tests_binary_op("sendrecv_perf"), "sendrecv");
  EXPECT_EQ(nccl_tests_binary_op("pipebench"), "");
  EXPECT_EQ(nccl_tests_binary_op("hypercube_perf"), "");  // no op here: no link, no name
  EXPECT_EQ(nccl_tests_binary_op("all_reduce_perf.sh"), "");
  const std::vector<std::string> words = nccl_tests_words("./build/bin/gather_perf", {"-b", "8"});
  EXPECT_EQ(words,
            (std::vector<std::string>{"bench", "--op", "gather", "--nccl-tests-name", "gather_perf", "-b", "8"}));
  EXPECT_EQ(nccl_tests_user_args(words), (std::vector<std::string>{"gather_perf", "-b", "8"}));
  EXPECT_EQ(nccl_tests_binaries().size(), 9u);
  // nccl-tests' --op is its -o, the reduction.
  EXPECT_EQ(nccl_tests_words("all_reduce_perf", {"--op", "prod", "--op=max"}),
            (std::vector<std::string>{"bench", "--op", "all_reduce", "--nccl-tests-name", "all_reduce_perf", "--redop",
                                      "prod", "--redop=max"}));
}

}  // namespace
}  // namespace pipebench
