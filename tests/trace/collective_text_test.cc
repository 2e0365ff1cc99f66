// SPDX-License-Identifier: Apache-2.0
#include "trace/collective_text.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(CollectiveText, NormalizesC10dNamesToThePlansNames) {
  EXPECT_EQ(normalize_collective("allreduce"), "all_reduce");
  EXPECT_EQ(normalize_collective("allreduce_coalesced"), "all_reduce");
  EXPECT_EQ(normalize_collective("_allgather_base"), "all_gather");
  EXPECT_EQ(normalize_collective("allgather_into_tensor_coalesced"), "all_gather");
  EXPECT_EQ(normalize_collective("_reduce_scatter_base"), "reduce_scatter");
  EXPECT_EQ(normalize_collective("reduce_scatter_tensor_coalesced"), "reduce_scatter");
  EXPECT_EQ(normalize_collective("all_to_allv"), "alltoall");
  EXPECT_EQ(normalize_collective("broadcast"), "broadcast");
  EXPECT_EQ(normalize_collective("send"), "send");
  EXPECT_EQ(normalize_collective("recv"), "recv");
  EXPECT_EQ(normalize_collective("reduce"), "reduce");
  EXPECT_EQ(normalize_collective("Barrier"), "barrier");
  EXPECT_EQ(normalize_collective("Coalesced"), "coalesced");  // unknown names kept, lower-cased
}

TEST(CollectiveText, ShapeListsAreParsedAsDataPerTensor) {
  EXPECT_EQ(parse_shape_list("[[32, 1, 4096]]").value(), (std::vector<std::int64_t>{131072}));
  EXPECT_EQ(parse_shape_list("[[4, 2], [], [3]]").value(), (std::vector<std::int64_t>{8, 3}));  // [] is not a tensor
  EXPECT_EQ(parse_shape_list("[[[2, 3], [4]], [5]]").value(), (std::vector<std::int64_t>{6, 4, 5}));  // a tensor list
  EXPECT_EQ(parse_shape_list("[[0, 7]]").value(), (std::vector<std::int64_t>{0}));
  EXPECT_FALSE(parse_shape_list("[[32, 1, oops]]"));
  EXPECT_FALSE(parse_shape_list("[[-1, 4]]"));
  EXPECT_FALSE(parse_shape_list("[[1.5]]"));
  EXPECT_FALSE(parse_shape_list("[[1, 2]"));
  EXPECT_FALSE(parse_shape_list("__import__('os').system('true')"));
  EXPECT_FALSE(parse_shape_list("[[4294967296, 4294967296, 4294967296]]"));  // overflows int64
  EXPECT_FALSE(parse_shape_list("{\"a\": 1}"));
}

TEST(CollectiveText, PyTorchNvtxTexts) {
  auto c = parse_collective_text("nccl:all_reduce, op_id = 12, sizes = [[32, 1, 4096]], input_op_ids = [(11,0)]");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->op, "all_reduce");
  EXPECT_EQ(c->elements, 131072);
  EXPECT_TRUE(c->sizes_present);
  // _all_gather_base(output, input): the larger tensor, the gathered output, as the plan counts it.
  c = parse_collective_text("nccl:_all_gather_base, seq = 3, sizes = [[8192], [1024]]");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->op, "all_gather");
  EXPECT_EQ(c->elements, 8192);
  c = parse_collective_text("nccl:send 0->1, op_id = 6, sizes = [[8, 1, 4096]]");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->op, "send");
  EXPECT_EQ(c->elements, 32768);
  c = parse_collective_text("nccl:barrier");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->sizes_present);
  EXPECT_EQ(c->elements, -1);
  c = parse_collective_text("nccl:all_reduce, sizes = [[32, oops]]");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->sizes_present);
  EXPECT_EQ(c->elements, -1);
  c = parse_collective_text("nccl:all_reduce, sizes = [[32, 1");  // cut off
  ASSERT_TRUE(c);
  EXPECT_EQ(c->elements, -1);
  EXPECT_FALSE(parse_collective_text("forward"));
  EXPECT_FALSE(parse_collective_text("aten::mm, sizes = [[2, 2], [2, 2]]"));
}

}  // namespace
}  // namespace pipebench
