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

// Credentials are redacted by name pattern beyond KEY, TOKEN, SECRET and PASSWORD (PASSWD, CRED, PW,
// passphrase, credential, precondition_transports).
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

// Values are inspected too: a hostile test found URL passwords and ?token= values recorded in clear.
TEST(RedactedValue, HidesUrlPasswordsAndSensitiveNameValuePairs) {
  EXPECT_EQ(redacted_value("s3://AKIA:SECRET@bucket/x"), "s3://<redacted>@bucket/x");
  EXPECT_EQ(redacted_value("http://admin:pw@proxy.example:8080"), "http://<redacted>@proxy.example:8080");
  EXPECT_EQ(redacted_value("see https://u@h/a and ftp://h/b"), "see https://<redacted>@h/a and ftp://h/b");
  EXPECT_EQ(redacted_value("/cache/x?token=abc&n=1"), "/cache/x?token=<redacted>&n=1");
  EXPECT_EQ(redacted_value("a;password=p;b=2,api_key=k"), "a;password=<redacted>;b=2,api_key=<redacted>");
  EXPECT_EQ(redacted_value("--hf-token=x --tokenizer-type=GPT2"), "--hf-token=<redacted> --tokenizer-type=GPT2");
  // Nothing sensitive: unchanged, also an '@' outside an authority and an empty value.
  for (const char* same : {"self,vader", "mlx5_0:1", "user@host", "https://h/p@q", "token=", "x=1=2", ""}) {
    EXPECT_EQ(redacted_value(same), same);
  }
}

TEST(AllowedEnvironment, RedactsCredentialsInsideKeptValues) {
  const auto env =
      allowed_environment({"OMPI_MCA_pml_ucx_proxy=http://admin:SECRET1@proxy:8080",
                           "NCCL_DEBUG_SUBSYS=https://u:SECRET2@x.example", "CUDA_CACHE_PATH=/x?token=S3"});
  EXPECT_EQ(env.at("OMPI_MCA_pml_ucx_proxy"), "http://<redacted>@proxy:8080");
  EXPECT_EQ(env.at("NCCL_DEBUG_SUBSYS"), "https://<redacted>@x.example");
  EXPECT_EQ(env.at("CUDA_CACHE_PATH"), "/x?token=<redacted>");
}

}  // namespace
}  // namespace pipebench
