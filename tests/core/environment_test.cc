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
  const auto env = allowed_environment(
      {"NCCL_API_KEY=abc", "CUDA_token=t", "OMPI_SECRET_X=s", "PMIX_PASSWORD=p", "NCCL_IB_HCA=mlx5"});
  EXPECT_EQ(env.at("NCCL_API_KEY"), kRedacted);
  EXPECT_EQ(env.at("CUDA_token"), kRedacted);
  EXPECT_EQ(env.at("OMPI_SECRET_X"), kRedacted);
  EXPECT_EQ(env.at("PMIX_PASSWORD"), kRedacted);
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "mlx5");
}

// The names a hostile test found written in clear (before: only KEY, TOKEN, SECRET, PASSWORD matched).
TEST(AllowedEnvironment, RedactsPasswordsCredentialsAndPerJobKeysByNamePattern) {
  const auto env =
      allowed_environment({"NCCL_IB_PASSWD=a", "NCCL_AUTH_CRED=b", "CUDA_LICENSE_PW=c",
                           "OMPI_MCA_sec_passphrase_file=d", "OMPI_MCA_my_passphrase=e", "PMIX_MCA_psec_credential=f",
                           "PMIX_MCA_x_credential_file=g", "OMPI_MCA_orte_precondition_transports=0123abcd-4567ef89",
                           "NCCL_IB_PKEY=1", "NCCL_IB_GID_INDEX=3", "CUDA_PWRCAP=300", "OMPI_MCA_btl=self,vader"});
  for (const char* name :
       {"NCCL_IB_PASSWD", "NCCL_AUTH_CRED", "CUDA_LICENSE_PW", "OMPI_MCA_sec_passphrase_file", "OMPI_MCA_my_passphrase",
        "PMIX_MCA_psec_credential", "PMIX_MCA_x_credential_file", "OMPI_MCA_orte_precondition_transports"}) {
    EXPECT_EQ(env.at(name), kRedacted) << name;
  }
  EXPECT_EQ(env.at("NCCL_IB_PKEY"), "1");  // allow-listed: a partition key index, a network setting
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(env.at("CUDA_PWRCAP"), "300");  // PW only as a whole word
  EXPECT_EQ(env.at("OMPI_MCA_btl"), "self,vader");
}

}  // namespace
}  // namespace pipebench
