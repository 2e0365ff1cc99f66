// SPDX-License-Identifier: Apache-2.0
// The plan's console text for a small GPT on 2 pipeline stages: the layout lines, a schedule's warm-up
// and bubble, a message row, and the bytes per rank with interleaving's ratio to 1F1B.
#include "report/plan_printer.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "megatron/model_args.h"

namespace pipebench {
namespace {

std::string small_plan_text() {
  const MegatronArgs args = parse_megatron_args({"--num-layers",
                                                 "8",
                                                 "--hidden-size",
                                                 "1024",
                                                 "--num-attention-heads",
                                                 "16",
                                                 "--seq-length",
                                                 "1024",
                                                 "--max-position-embeddings",
                                                 "1024",
                                                 "--micro-batch-size",
                                                 "1",
                                                 "--global-batch-size",
                                                 "16",
                                                 "--bf16",
                                                 "--vocab-size",
                                                 "50257",
                                                 "--pipeline-model-parallel-size",
                                                 "2",
                                                 "--world-size",
                                                 "2"});
  std::ostringstream out;
  print_plan(out, make_plan(args, 0));
  return out.str();
}

TEST(PlanPrinter, LayoutLinesComeFirst) {
  const std::string text = small_plan_text();
  EXPECT_EQ(text.rfind("# Megatron-LM plan: 8 layers, hidden 1024, ffn 4096, heads 16, seq 1024, micro batch 1, "
                       "global batch 16, bfloat16 params, float grads\n"
                       "# vocab 50257 (--vocab-size) padded to 50304\n"
                       "# layout: world 2 = tp 1 x cp 1 x dp 1 x pp 2; 16 microbatches per iteration; rank order "
                       "tp-cp-ep-dp-pp\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\n# valid v (interleaved virtual stages per rank): 2 4\n"), std::string::npos) << text;
}

TEST(PlanPrinter, ScheduleWarmUpMessagesAndBytes) {
  const std::string text = small_plan_text();
  EXPECT_NE(text.find("\n# schedule 1f1b: warm-up microbatches per pipeline rank 1 0; ideal bubble 0.0625\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("\n      0     2  send            peer 1                  1048576  bfloat16      2097152        1 "
                " warm-up    activation  [batch 0 send_forward]\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\n#   rank 0     p2p out 32.00 MiB, in 32.00 MiB; collectives 605.45 MiB; total 669.45 MiB\n"),
            std::string::npos)
      << text;
  // Interleaving on v = 2 sends three times 1F1B's activations.
  EXPECT_NE(text.find("\n#   rank 0     p2p out 96.00 MiB, in 96.00 MiB; collectives 605.45 MiB; total 797.45 MiB; "
                      "p2p x3.00, total x1.191 of 1F1B\n"),
            std::string::npos)
      << text;
  // Every rank is in the pipeline group shown: no note that the tables leave ranks out.
  EXPECT_EQ(text.find("(tables show the first pipeline group"), std::string::npos) << text;
}

}  // namespace
}  // namespace pipebench
