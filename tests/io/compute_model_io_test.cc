// SPDX-License-Identifier: Apache-2.0
// A compute model as the bytes run --profile broadcasts: every field back as it was, and bytes that are not a
// compute model refused with the field named.
#include "io/compute_model_io.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"

namespace pipebench {
namespace {

ComputeModel per_rank_model() {
  ComputeModel m;
  m.fwd_ms_per_layer = 6.2;
  m.bwd_ms_per_layer = 12.1;
  m.w_share = 0.4;
  m.output_layer_fwd_ms = 0.03;
  m.optimizer_ms = 2.5;
  m.pass_overhead_ms = 0.012;
  m.source = "profile";
  m.sends_block = false;
  m.ranks = {{6.4, 11.3, 0.5, 0.19, 1.9}, {6.1, 12.7, 0.45, 0.49, 4.8}};
  return m;
}

TEST(ComputeModelIo, ARoundTripKeepsEveryRanksTerms) {
  const ComputeModel m = per_rank_model();
  const ComputeModel back = compute_model_from_json(nlohmann::json::parse(compute_model_to_json(m).dump()));
  EXPECT_EQ(back.fwd_ms_per_layer, m.fwd_ms_per_layer);
  EXPECT_EQ(back.bwd_ms_per_layer, m.bwd_ms_per_layer);
  EXPECT_EQ(back.w_share, m.w_share);
  EXPECT_EQ(back.output_layer_fwd_ms, m.output_layer_fwd_ms);
  EXPECT_EQ(back.optimizer_ms, m.optimizer_ms);
  EXPECT_EQ(back.pass_overhead_ms, m.pass_overhead_ms);
  EXPECT_EQ(back.source, m.source);
  EXPECT_FALSE(back.sends_block);
  ASSERT_EQ(back.ranks.size(), 2u);
  EXPECT_EQ(back.ranks[1].bwd_ms_per_layer, 12.7);
  EXPECT_EQ(back.ranks[1].pass_overhead_ms, 0.49);
  EXPECT_EQ(back.optimizer_ms_of(1), 4.8);
  EXPECT_DOUBLE_EQ(back.output_layer_ms(1), m.output_layer_ms(1));
}

TEST(ComputeModelIo, BytesThatAreNotAComputeModelAreRefusedByField) {
  nlohmann::json j = compute_model_to_json(per_rank_model());
  j.erase("sends_block");
  EXPECT_THROW((void)compute_model_from_json(j), Error);
  j = compute_model_to_json(per_rank_model());
  j["ranks"][0]["fwd_ms_per_layer"] = -1;
  try {
    (void)compute_model_from_json(j);
    FAIL() << "a negative time was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fwd_ms_per_layer"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)compute_model_from_json(nlohmann::json::array()), Error);
}

}  // namespace
}  // namespace pipebench
