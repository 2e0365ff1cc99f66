// SPDX-License-Identifier: Apache-2.0
#include "trace/kernel_names.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(KernelNames, NcclKernelsAreCommunication) {
  EXPECT_TRUE(is_nccl_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
  EXPECT_TRUE(is_nccl_kernel("ncclDevKernel_SendRecv"));
  EXPECT_TRUE(is_nccl_kernel("ncclKernel_AllGather_RING_LL_Sum_int8_t"));
  EXPECT_TRUE(is_nccl_kernel("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
  EXPECT_TRUE(is_nccl_kernel("__nv_static_32__onerank_cu__ZN13oneRankReduceI13FuncPreMulSumIfEEEvPvS3_mmb"));
  EXPECT_FALSE(is_nccl_kernel("sm90_xmma_gemm_bf16bf16_bf16f32"));
  EXPECT_FALSE(is_nccl_kernel("nccl"));
}

TEST(KernelNames, DtypeTokens) {
  EXPECT_EQ(nccl_kernel_dtype("ncclDevKernel_AllReduce_Sum_bf16_RING_LL")->name, "bfloat16");
  EXPECT_EQ(nccl_kernel_dtype("ncclDevKernel_ReduceScatter_Sum_f32_RING_SIMPLE")->size_bytes, 4);
  EXPECT_EQ(nccl_kernel_dtype("ncclDevKernel_AllReduce_Sum_f8e4m3_RING_LL")->name, "float8_e4m3");
  EXPECT_EQ(nccl_kernel_dtype("ncclKernel_AllReduce_RING_LL_Sum_int8_t")->name, "int8");
  EXPECT_EQ(nccl_kernel_dtype("ncclKernel_AllReduce_RING_LL_Sum___nv_bfloat16")->name, "bfloat16");
  EXPECT_EQ(nccl_kernel_dtype("void ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*)")->name, "half");
  EXPECT_FALSE(nccl_kernel_dtype("ncclDevKernel_SendRecv"));
  EXPECT_FALSE(nccl_kernel_dtype("ncclDevKernel_AllGather_RING_LL"));
  EXPECT_FALSE(nccl_kernel_dtype("sm90_gemm_f32"));
}

}  // namespace
}  // namespace pipebench
