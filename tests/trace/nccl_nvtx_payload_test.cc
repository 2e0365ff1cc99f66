// SPDX-License-Identifier: Apache-2.0
// NCCL's API range names and the sizes in their exported payloads.
#include "trace/nccl_nvtx_payload.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(NcclNvtxPayload, ApiNamesMapToOpsAndNothingElse) {
  EXPECT_EQ(nccl_api_collective("ncclAllReduce").value(), "all_reduce");
  EXPECT_EQ(nccl_api_collective("ncclReduceScatter").value(), "reduce_scatter");
  EXPECT_EQ(nccl_api_collective("ncclAlltoAll").value(), "alltoall");
  EXPECT_EQ(nccl_api_collective("ncclRecv").value(), "recv");
  EXPECT_FALSE(nccl_api_collective("ncclAllReduceX"));
  EXPECT_FALSE(nccl_api_collective("nccl:all_reduce"));
  EXPECT_FALSE(nccl_api_collective("ncclCommInitRank"));
  EXPECT_FALSE(parse_nccl_nvtx_range("forward", R"({"Message size [bytes]": 8})"));
}

TEST(NcclNvtxPayload, SizesFromEitherEntryNameAsNumberOrText) {
  auto p = parse_nccl_nvtx_range("ncclAllReduce", R"({"NCCL communicator ID": 1, "Message size [bytes]": 262144})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->op, "all_reduce");
  EXPECT_EQ(p->bytes.value(), 262144);
  EXPECT_FALSE(p->per_rank_part);
  EXPECT_EQ(parse_nccl_nvtx_range("ncclSend", R"({"Bytes": 4096, "Peer rank": 3})")->bytes.value(), 4096);
  EXPECT_EQ(parse_nccl_nvtx_range("ncclBroadcast", R"({"Message size [bytes]": "1,048,576"})")->bytes.value(), 1048576);
  EXPECT_EQ(parse_nccl_nvtx_range("ncclSend", R"({"Bytes": 18446744073709551615})")->bytes, std::nullopt);
  EXPECT_TRUE(parse_nccl_nvtx_range("ncclAllGather", "{}")->per_rank_part);
  EXPECT_TRUE(parse_nccl_nvtx_range("ncclReduceScatter", "")->per_rank_part);
}

TEST(NcclNvtxPayload, UnusablePayloadsGiveNoSizeButStillTheRange) {
  for (const char* bad : {"", "not json", "[1, 2]", R"({"Message size [bytes]": -1})",
                          R"({"Message size [bytes]": 1.5})", R"({"Message size [bytes]": "12a"})",
                          R"({"Message size [bytes]": ""})", R"({"Message size [bytes]": "99999999999999999999"})",
                          R"({"Message size [bytes]": null})", R"({"Peer rank": 2})"}) {
    const auto p = parse_nccl_nvtx_range("ncclAllReduce", bad);
    ASSERT_TRUE(p) << bad;
    EXPECT_FALSE(p->bytes) << bad;
  }
}

}  // namespace
}  // namespace pipebench
