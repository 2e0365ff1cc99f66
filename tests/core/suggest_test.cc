// SPDX-License-Identifier: Apache-2.0
#include "core/suggest.h"

#include <gtest/gtest.h>

namespace pipebench {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "ab"), 2u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // the textbook pair: k->s, e->i, +g
  EXPECT_EQ(edit_distance("--link-gbs", "--link-gbps"), 1u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(NearestWord, ATypoGetsTheNearestKnownWord) {
  const std::vector<std::string> flags = {"--link-gbps", "--link-latency-us", "--link", "--plan", "--table"};
  EXPECT_EQ(nearest_word("--link-gbs", flags), "--link-gbps");
  EXPECT_EQ(nearest_word("--tabel", flags), "--table");
  EXPECT_EQ(nearest_word("--link-lat", flags), "");    // starts two flags (--link-latency-us, --link): no guess
  EXPECT_EQ(nearest_word("--frobnicate", flags), "");  // nothing near
  EXPECT_EQ(nearest_word("--", flags), "");            // a prefix of all: no guess
  const std::vector<std::string> commands = {"bench", "run", "topo", "pairs", "plan", "predict"};
  EXPECT_EQ(nearest_word("benchmark", commands), "bench");  // bench is its start
  EXPECT_EQ(nearest_word("predcit", commands), "predict");
  EXPECT_EQ(nearest_word("x", commands), "");
  EXPECT_EQ(did_you_mean("pari", commands), " (did you mean pairs?)");
  EXPECT_EQ(did_you_mean("zzzzzz", commands), "");
}

TEST(NearestWord, MegatronArgumentTyposAreFound) {
  const std::vector<std::string> names = {"--pipeline-model-parallel-size", "--tensor-model-parallel-size",
                                          "--context-parallel-size", "--num-layers"};
  EXPECT_EQ(nearest_word("--pipeline-parallel-size", names), "--pipeline-model-parallel-size");
  EXPECT_EQ(nearest_word("--tensor-parallel-size", names), "--tensor-model-parallel-size");
  EXPECT_EQ(nearest_word("--num-layer", names), "--num-layers");
}

}  // namespace
}  // namespace pipebench
