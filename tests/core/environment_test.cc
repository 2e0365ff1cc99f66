// SPDX-License-Identifier: Apache-2.0
#include "core/environment.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(AllowedEnvironment, KeepsOnlyNcclCudaOmpiPmixVariables) {
  const auto env = allowed_environment({"NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0,1", "OMPI_COMM_WORLD_SIZE=4",
                                        "PMIX_RANK=1", "HOME=/root", "PATH=/bin", "MY_NCCL_X=1", "NOEQUALS"});
  EXPECT_EQ(env.size(), 4u);
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(env.count("HOME"), 0u);
  EXPECT_EQ(env.count("MY_NCCL_X"), 0u);
}

TEST(AllowedEnvironment, RedactsSecretsWhateverTheirCase) {
  const auto env = allowed_environment({"NCCL_API_KEY=abc", "CUDA_token=t", "OMPI_SECRET_X=s", "PMIX_PASSWORD=p",
                                        "NCCL_IB_HCA=mlx5"});
  EXPECT_EQ(env.at("NCCL_API_KEY"), kRedacted);
  EXPECT_EQ(env.at("CUDA_token"), kRedacted);
  EXPECT_EQ(env.at("OMPI_SECRET_X"), kRedacted);
  EXPECT_EQ(env.at("PMIX_PASSWORD"), kRedacted);
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "mlx5");
}

}  // namespace
}  // namespace pipebench
