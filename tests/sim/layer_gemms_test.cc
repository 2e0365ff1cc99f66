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
