// SPDX-License-Identifier: Apache-2.0
// The pipeline split against Megatron-LM's get_num_layers_to_build / get_transformer_layer_offset, worked
// by hand, and its rules (transformer_config.py, arguments.py).
#include "megatron/pipeline_split.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "megatron/layout.h"

namespace pipebench {
namespace {

MegatronArgs args_of(const std::string& extra, int layers = 10, int p = 4) {
  std::istringstream in("--num-layers " + std::to_string(layers) +
                        " --hidden-size 64 --num-attention-heads 4 --seq-length 16 --max-position-embeddings 16 "
                        "--micro-batch-size 1 --global-batch-size 16 --vocab-size 100 --pipeline-model-parallel-size " +
                        std::to_string(p) + " " + extra);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return parse_megatron_args(w);
}

// (first layer, count) of every chunk, rank-major: r0c0 r0c1 ... r1c0 ...
std::vector<std::pair<int, int>> ranges(const MegatronArgs& a, int p, int v) {
  std::vector<std::pair<int, int>> out;
  for (int r = 0; r < p; ++r) {
    for (int c = 0; c < v; ++c) {
      const LayerRange x = chunk_layer_range(a, p, r, c, v);
      out.emplace_back(x.first, x.count);
    }
  }
  return out;
}

// Every layer on exactly one chunk, and the chunks in model order (stage c p + r) contiguous from 0.
void expect_covers_in_order(const MegatronArgs& a, int p, int v) {
  int next = 0;
  for (int s = 0; s < p * v; ++s) {
    const LayerRange x = chunk_layer_range(a, p, s % p, s / p, v);
    EXPECT_EQ(x.first, next) << "stage " << s;
    EXPECT_GE(x.count, 0) << "stage " << s;
    next = x.first + x.count;
  }
  EXPECT_EQ(next, a.num_layers);
}

std::string problem(const std::string& extra, int layers = 10, int p = 4, int v = 1) {
  try {
    return pipeline_split_problem(args_of(extra, layers, p), p, v);
  } catch (const UsageError& e) {
    return std::string("usage error: ") + e.what();
  }
}

TEST(PipelineSplit, EvenSplitIsTheUsualOne) {
  const MegatronArgs a = args_of("", 16, 4);
  EXPECT_FALSE(uneven_pipeline_split(a));
  EXPECT_EQ(ranges(a, 4, 1), (std::vector<std::pair<int, int>>{{0, 4}, {4, 4}, {8, 4}, {12, 4}}));
  // Interleaved v 2 (megatron.md §1): chunk c of rank r holds layers c L/v + r L/(p v) ...
  EXPECT_EQ(ranges(a, 4, 2),
            (std::vector<std::pair<int, int>>{{0, 2}, {8, 2}, {2, 2}, {10, 2}, {4, 2}, {12, 2}, {6, 2}, {14, 2}}));
  expect_covers_in_order(a, 4, 2);
  // Its rules read as make_layout's.
  EXPECT_EQ(problem("", 10), "num_layers 10 is not divisible by pipeline size 4");
  EXPECT_EQ(problem("", 16, 4, 3), "number of layers per pipeline stage (4) is not divisible by v = 3");
}

TEST(PipelineSplit, FirstAndLastStagesTakeTheirLayersTheMiddleSharesTheRest) {
  // 10 layers, first 2, last 2, p 4: the two middle stages take 6 / 2 = 3 each.
  const MegatronArgs a = args_of("--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2");
  EXPECT_TRUE(uneven_pipeline_split(a));
  EXPECT_EQ(pipeline_split_problem(a, 4, 1), "");
  EXPECT_EQ(ranges(a, 4, 1), (std::vector<std::pair<int, int>>{{0, 2}, {2, 3}, {5, 3}, {8, 2}}));
  // Only the first: 9 layers over the other 3 stages; only the last: 9 over the first 3.
  EXPECT_EQ(ranges(args_of("--decoder-first-pipeline-num-layers 1"), 4, 1),
            (std::vector<std::pair<int, int>>{{0, 1}, {1, 3}, {4, 3}, {7, 3}}));
  EXPECT_EQ(ranges(args_of("--decoder-last-pipeline-num-layers 1"), 4, 1),
            (std::vector<std::pair<int, int>>{{0, 3}, {3, 3}, {6, 3}, {9, 1}}));
  // p 2 with both named: no middle stage.
  EXPECT_EQ(ranges(args_of("--decoder-first-pipeline-num-layers 4 --decoder-last-pipeline-num-layers 6", 10, 2), 2, 1),
            (std::vector<std::pair<int, int>>{{0, 4}, {4, 6}}));
}

TEST(PipelineSplit, InterleavedUnevenOffsetsFollowGetTransformerLayerOffset) {
  // 16 layers, p 4, first 2, last 2, v 2: 12 middle layers, 6 per middle rank; per chunk: first 1, middle 3,
  // last 1; a round of chunks (one per rank) is 16 / 2 = 8 layers.
  const MegatronArgs a = args_of("--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2", 16);
  EXPECT_EQ(pipeline_split_problem(a, 4, 2), "");
  EXPECT_EQ(ranges(a, 4, 2),
            (std::vector<std::pair<int, int>>{{0, 1}, {8, 1}, {1, 3}, {9, 3}, {4, 3}, {12, 3}, {7, 1}, {15, 1}}));
  expect_covers_in_order(a, 4, 2);
  // Only a last stage: the middle ranks start at rank 0.
  const MegatronArgs last = args_of("--decoder-last-pipeline-num-layers 2", 14);
  EXPECT_EQ(pipeline_split_problem(last, 4, 2), "");
  expect_covers_in_order(last, 4, 2);
  EXPECT_EQ(chunk_layer_range(last, 4, 1, 1, 2).first, 7 + 2);
}

TEST(PipelineSplit, EmbeddingAndLossSlotsTakeALayerFromTheFirstAndLastChunk) {
  // 10 layers + embedding + loss = 12 slots, 3 per rank: 2, 3, 3, 2 (the same as first 2 / last 2).
  const MegatronArgs a = args_of("--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
  EXPECT_TRUE(uneven_pipeline_split(a));
  EXPECT_EQ(ranges(a, 4, 1), (std::vector<std::pair<int, int>>{{0, 2}, {2, 3}, {5, 3}, {8, 2}}));
  // v 3: one slot per chunk; the embedding's chunk (0, 0) and the loss's (3, 2) build no layer.
  EXPECT_EQ(pipeline_split_problem(a, 4, 3), "");
  const auto v3 = ranges(a, 4, 3);
  EXPECT_EQ(v3.front(), (std::pair<int, int>{0, 0}));
  EXPECT_EQ(v3.back().second, 0);
  EXPECT_EQ(chunk_layer_range(a, 4, 1, 0, 3).first, 0);  // the first layer is on rank 1
  expect_covers_in_order(a, 4, 3);
  // Only the loss: 11 layers + 1 = 12.
  const MegatronArgs loss = args_of("--account-for-loss-in-pipeline-split", 11);
  EXPECT_EQ(ranges(loss, 4, 1), (std::vector<std::pair<int, int>>{{0, 3}, {3, 3}, {6, 3}, {9, 2}}));
}

TEST(PipelineSplit, MegatronsRulesNameTheArgument) {
  // Middle layers not divisible among the middle stages: 10 - 3 - 2 = 5 over 2.
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 3 --decoder-last-pipeline-num-layers 2")
                .find("number of layers at middle stages (5) must be divisible by the middle pipeline size (2)"),
            std::string::npos);
  // Middle layers left but no middle stage (p 2), and the stages taking more layers than there are.
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2", 10, 2)
                .find("Mismatch: 6 middle layers remaining but 0 middle pipeline stages"),
            std::string::npos);
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 8 --decoder-last-pipeline-num-layers 4")
                .find("take more layers than the model has"),
            std::string::npos);
  // With v chunks: the first, last and middle stages' layers divide by v.
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 3 --decoder-last-pipeline-num-layers 1", 16, 4, 2)
                .find("--decoder-first-pipeline-num-layers 3: the layers of the first stage must be divisible by "
                      "the virtual pipeline size 2"),
            std::string::npos);
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2", 10, 4, 2)
                .find("number of layers on each middle pipeline rank (3) must be divisible by the virtual pipeline "
                      "size 2"),
            std::string::npos);
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 4 --decoder-last-pipeline-num-layers 4", 8, 2, 2)
                .find("leaves no middle stage"),
            std::string::npos);
  // Uneven stages and the embedding / loss slots exclude each other.
  EXPECT_NE(problem("--decoder-first-pipeline-num-layers 2 --account-for-loss-in-pipeline-split")
                .find("cannot be combined with --account-for-embedding-in-pipeline-split"),
            std::string::npos);
  EXPECT_NE(problem("--account-for-loss-in-pipeline-split")
                .find("number of layers with the embedding and loss slots (11) must be divisible by pipeline size 4"),
            std::string::npos);
  EXPECT_EQ(problem("--account-for-loss-in-pipeline-split", 11), "");
}

}  // namespace
}  // namespace pipebench
