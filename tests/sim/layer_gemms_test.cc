// SPDX-License-Identifier: Apache-2.0
#include "sim/layer_gemms.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(LayerGemms, FlopsAddUpToTheLayerFormula) {
  LayerDims d;
  d.b = 2;
  d.s = 1024;
  d.h = 4096;
  d.f = 16384;
  d.heads = d.groups = 32;
  double flops = 0;
  for (const auto& g : layer_forward_gemms(d)) flops += g.flops();
  // 2 b s (4h^2 + 2hf) + 4 b s^2 h (Narayanan et al. 2021).
  const double want = 2.0 * 2 * 1024 * (4.0 * 4096 * 4096 + 2.0 * 4096 * 16384) + 4.0 * 2 * 1024 * 1024 * 4096;
  EXPECT_DOUBLE_EQ(flops, want);
}

// Each forward product has two gradients of its own FLOPs: the backward is 2x the forward, and W (the
// weights' gradients) is the four weight GEMMs' share of one forward.
TEST(LayerGemms, BackwardIsTwiceTheForwardAndWIsTheWeightGemms) {
  LayerDims d;
  d.b = 1;
  d.s = 2048;
  d.h = 4096;
  d.f = 11008;
  d.heads = 32;
  d.groups = 8;
  d.tp = 2;
  d.swiglu = true;
  double fwd = 0, weight_fwd = 0, dgrad = 0, wgrad = 0;
  for (const auto& g : layer_forward_gemms(d)) {
    fwd += g.flops();
    if (g.name.rfind("attention", 0) != 0) weight_fwd += g.flops();
  }
  const LayerBackwardGemms b = layer_backward_gemms(d);
  for (const auto& g : b.dgrad) dgrad += g.flops();
  for (const auto& g : b.wgrad) wgrad += g.flops();
  EXPECT_DOUBLE_EQ(dgrad + wgrad, 2 * fwd);
  EXPECT_DOUBLE_EQ(wgrad, weight_fwd);
  EXPECT_EQ(b.wgrad.size(), 4u);
  EXPECT_EQ(b.dgrad.size(), 8u);
  // qkv's weight gradient: X^T [h, tokens] x dC [tokens, n].
  EXPECT_EQ(b.wgrad[0].m, d.h);
  EXPECT_EQ(b.wgrad[0].k, d.b * d.s);
}

TEST(LayerGemms, TensorParallelismSplitsEveryMatrixAndGqaShrinksQkv) {
  LayerDims d;
  d.b = 1;
  d.s = 512;
  d.h = 1024;
  d.f = 4096;
  d.heads = 16;
  d.groups = 16;
  double full = 0, split = 0;
  for (const auto& g : layer_forward_gemms(d)) full += g.flops();
  d.tp = 4;
  for (const auto& g : layer_forward_gemms(d)) split += g.flops();
  EXPECT_DOUBLE_EQ(split * 4, full);
  d.tp = 1;
  d.groups = 4;
  EXPECT_EQ(layer_forward_gemms(d)[0].n, 1024 + 2 * 4 * 64);
  d.swiglu = true;
  EXPECT_EQ(layer_forward_gemms(d)[4].n, 2 * 4096);
}

}  // namespace
}  // namespace pipebench
