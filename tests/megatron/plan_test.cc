// SPDX-License-Identifier: Apache-2.0
// The plan against the worked example of the Megatron reference (§9) and further configurations.
#include "megatron/plan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "io/plan_io.h"
#include "megatron/param_count.h"

namespace pipebench {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const char* kSeed =
    "--num-layers 32 --hidden-size 4096 --ffn-hidden-size 11008 --num-attention-heads 32 --seq-length 32 "
    "--max-position-embeddings 32 "
    "--micro-batch-size 1 --global-batch-size 16 --tensor-model-parallel-size 1 --pipeline-model-parallel-size 4 "
    "--fp16 --vocab-size 50257";

Plan plan_of(const std::string& args, int gpus = 0) { return make_plan(parse_megatron_args(words(args)), gpus); }

// By value: a reference into `p` bound at a call with a temporary name or plan would dangle (g++ 13
// -Wdangling-reference rightly refuses `const Schedule& s = schedule(p, "1f1b")`).
Schedule schedule(const Plan& p, const std::string& name, int v = 1) {
  for (const auto& s : p.schedules) {
    if (s.id == ScheduleId{name, v}) return s;
  }
  throw std::runtime_error("no schedule " + name);
}

// Sum of counts of rank's messages with this op, peer (or -1) and `what`.
std::int64_t count(const Schedule& s, int rank, const std::string& op, int peer, const std::string& what) {
  std::int64_t n = 0;
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.op.is(op) && (peer < 0 || m.peer == peer) && m.what == what) n += m.count;
  }
  return n;
}

const PlanMessage* find(const Schedule& s, int rank, const std::string& what) {
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.what == what) return &m;
  }
  return nullptr;
}

std::string usage_error(const std::string& args, int gpus = 0) {
  try {
    (void)plan_of(args, gpus);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MegatronPlan, WorkedExampleLayoutParamsAndWarmup) {
  const Plan p = plan_of(kSeed);
  EXPECT_EQ(p.layout.world, 4);
  EXPECT_EQ(p.layout.microbatches, 16);
  EXPECT_EQ(padded_vocab(p.args), 50304);
  EXPECT_EQ(p.valid_v, (std::vector<int>{2, 4, 8}));
  const Schedule s = schedule(p, "1f1b");
  EXPECT_EQ(s.warmup, (std::vector<std::int64_t>{3, 2, 1, 0}));
  EXPECT_DOUBLE_EQ(s.bubble_ideal, 3.0 / 16);
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[0].params, 1464850432);
  EXPECT_EQ(s.params[1].params, 1258674176);
  EXPECT_EQ(s.params[2].params, 1258674176);
  EXPECT_EQ(s.params[3].params, 1464727552);
  EXPECT_EQ(total_elements(layer_tensors(p.args)), 157334272);
}

TEST(MegatronPlan, WorkedExample1F1BMessages) {
  const Plan plan_s = plan_of(kSeed);
  const Schedule s = schedule(plan_s, "1f1b");
  const PlanMessage* act = find(s, 1, "activation");
  ASSERT_NE(act, nullptr);
  EXPECT_EQ(act->elements, 131072);
  EXPECT_EQ(act->bytes, 262144);
  EXPECT_EQ(act->dtype, DType::kHalf);
  // Per rank and direction (§9 table).
  EXPECT_EQ(count(s, 0, "send", 1, "activation"), 16);
  EXPECT_EQ(count(s, 0, "recv", 1, "activation grad"), 16);
  EXPECT_EQ(count(s, 0, "recv", -1, "activation"), 0);
  EXPECT_EQ(count(s, 1, "send", 2, "activation"), 16);
  EXPECT_EQ(count(s, 1, "send", 0, "activation grad"), 16);
  EXPECT_EQ(count(s, 1, "recv", 0, "activation"), 16);
  EXPECT_EQ(count(s, 1, "recv", 2, "activation grad"), 16);
  EXPECT_EQ(count(s, 3, "send", 2, "activation grad"), 16);
  EXPECT_EQ(count(s, 3, "recv", 2, "activation"), 16);
  EXPECT_EQ(count(s, 3, "send", 0, "activation"), 0);  // the wrap-around edge is unused
  std::int64_t total = 0;
  for (const auto& m : s.messages) total += m.op == "send" ? m.count : 0;
  EXPECT_EQ(total, 2 * 16 * 3);  // 2 m (p-1) messages
  // Warm-up phase of rank 1: 2 activations out.
  for (const auto& m : s.messages) {
    if (m.rank == 1 && m.op == "send" && m.what == "activation" && m.phase == Phase::kWarmup) {
      EXPECT_EQ(m.count, 2);
    }
  }
}

TEST(MegatronPlan, WorkedExampleCollectives) {
  const Plan plan_s = plan_of(kSeed);
  const Schedule s = schedule(plan_s, "1f1b");
  const PlanMessage* emb = find(s, 0, "word-embedding grad");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(emb->group, (std::vector<int>{0, 3}));
  EXPECT_EQ(emb->bytes, 412090368);
  EXPECT_NE(find(s, 3, "word-embedding grad"), nullptr);
  EXPECT_EQ(find(s, 1, "word-embedding grad"), nullptr);
  EXPECT_EQ(find(s, 0, "dp grads, chunk 0")->elements, 1464850432);
  EXPECT_EQ(find(s, 0, "dp grads, chunk 0")->group, std::vector<int>{0});  // 1-rank DP group, still issued
  EXPECT_EQ(find(s, 1, "dp grads, chunk 0")->elements, 1258674176);
  EXPECT_EQ(find(s, 3, "dp grads, chunk 0")->elements, 1464727552);
  EXPECT_EQ(count(s, 3, "all_reduce", -1, "cross-entropy (max, sum, sum)"), 48);
  EXPECT_EQ(find(s, 3, "cross-entropy (max, sum, sum)")->bytes, 128);
  EXPECT_EQ(count(s, 0, "broadcast", -1, "tokens, position ids") + count(s, 0, "broadcast", -1, "attention mask"), 48);
  EXPECT_EQ(find(s, 0, "found_inf (max)")->group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(find(s, 3, "loss")->count, 1);
  EXPECT_EQ(find(s, 0, "loss"), nullptr);
  EXPECT_EQ(find(s, 0, "TP per layer"), nullptr);  // t = 1
}

TEST(MegatronPlan, WorkedExampleInterleavedV4) {
  const Plan p = plan_of(std::string(kSeed) + " --num-layers-per-virtual-pipeline-stage 2");
  ASSERT_EQ(p.schedules.size(), 2u);
  const Schedule s = schedule(p, "interleaved", 4);
  EXPECT_EQ(s.warmup, (std::vector<std::int64_t>{18, 16, 14, 12}));
  EXPECT_DOUBLE_EQ(s.bubble_ideal, 3.0 / 64);
  EXPECT_EQ(count(s, 0, "send", 1, "activation"), 64);
  EXPECT_EQ(count(s, 0, "send", 3, "activation grad"), 48);  // wrap
  EXPECT_EQ(count(s, 0, "recv", 1, "activation grad"), 64);
  EXPECT_EQ(count(s, 0, "recv", 3, "activation"), 48);  // wrap
  for (int r : {1, 2}) {
    EXPECT_EQ(count(s, r, "send", r + 1, "activation"), 64);
    EXPECT_EQ(count(s, r, "send", r - 1, "activation grad"), 64);
    EXPECT_EQ(count(s, r, "recv", r - 1, "activation"), 64);
    EXPECT_EQ(count(s, r, "recv", r + 1, "activation grad"), 64);
  }
  EXPECT_EQ(count(s, 3, "send", 2, "activation grad"), 64);
  EXPECT_EQ(count(s, 3, "send", 0, "activation"), 48);
  EXPECT_EQ(count(s, 3, "recv", 2, "activation"), 64);
  EXPECT_EQ(count(s, 3, "recv", 0, "activation grad"), 48);
  std::int64_t total = 0;
  for (const auto& m : s.messages) total += m.op == "send" ? m.count : 0;
  EXPECT_EQ(total, 2 * 16 * (4 * 4 - 1));  // 2 m (p v - 1) = 480
  EXPECT_EQ(find(s, 0, "dp grads, chunk 0")->elements, 520844800);
  EXPECT_EQ(find(s, 0, "dp grads, chunk 1")->elements, 314668544);
  EXPECT_EQ(find(s, 3, "dp grads, chunk 3")->elements, 520721920);
  EXPECT_EQ(find(s, 3, "word-embedding grad")->bytes, 412090368);
}

TEST(MegatronPlan, ScheduleTableFollowsMicrobatchGroups) {
  // The code comment of get_schedule_table: p=2, N=3, m=5, v=2 -> chunks 0 0 0 1 1 1 0 0 1 1.
  const auto a = parse_megatron_args(
      words("--num-layers 4 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
            "--micro-batch-size 1 "
            "--global-batch-size 5 --pipeline-model-parallel-size 2 --vocab-size 100 "
            "--microbatch-group-size-per-virtual-pipeline-stage 3 --num-virtual-stages-per-pipeline-rank 2"));
  const Layout l = make_layout(a, 0);
  std::vector<int> chunks;
  for (const auto& e : megatron_shape(a, l, {"interleaved", 2}).table) chunks.push_back(e.second);
  EXPECT_EQ(chunks, (std::vector<int>{0, 0, 0, 1, 1, 1, 0, 0, 1, 1}));
}

TEST(MegatronPlan, TensorParallelWithoutAndWithSequenceParallel) {
  const std::string base =
      "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --max-position-embeddings 512 "
      "--micro-batch-size 2 "
      "--global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --bf16 --vocab-size 32000";
  const Plan plan_s = plan_of(base);
  const Schedule s = schedule(plan_s, "1f1b");
  const PlanMessage* tp = find(s, 0, "TP per layer");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->op, "all_reduce");
  EXPECT_EQ(tp->elements, 512 * 2 * 1024);
  EXPECT_EQ(tp->count, 4 * 4 * 4);  // 4 per layer x 4 layers x m = 4
  EXPECT_EQ(tp->group, (std::vector<int>{0, 1}));
  EXPECT_EQ(find(s, 0, "activation")->elements, 512 * 2 * 1024);     // full tensor on every TP rank
  EXPECT_EQ(find(s, 0, "activation")->peer, 2);                      // pp peers are t ranks apart
  EXPECT_EQ(find(s, 0, "dp grads, chunk 0")->dtype, DType::kFloat);  // bf16 grads reduce in fp32
  const Plan plan_sp = plan_of(base + " --sequence-parallel");
  const Schedule sp = schedule(plan_sp, "1f1b");
  EXPECT_EQ(find(sp, 0, "activation")->elements, 512 / 2 * 2 * 1024);
  std::int64_t ag = 0, rs = 0;
  for (const auto& m : sp.messages) {
    if (m.rank == 0 && m.what == "TP per layer (SP)") (m.op == "all_gather" ? ag : rs) += m.count;
  }
  EXPECT_EQ(ag, 6 * 4 * 4);
  EXPECT_EQ(rs, 4 * 4 * 4);
  // Norms (4h) and row-parallel biases (2h) of 4 layers.
  EXPECT_EQ(find(sp, 0, "sequence-parallel params")->elements, 4 * 6 * 1024);
}

TEST(MegatronPlan, ContextParallelShrinksTheP2PTensorAndJoinsTheDpGroup) {
  const Plan p = plan_of(
      "--num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
      "--micro-batch-size 1 "
      "--global-batch-size 8 --context-parallel-size 2 --pipeline-model-parallel-size 2 --bf16 --vocab-size 1000 "
      "--world-size 8");
  EXPECT_EQ(p.layout.dp, 2);
  const Schedule s = schedule(p, "1f1b");
  EXPECT_EQ(find(s, 0, "activation")->elements, 1024 / 2 * 512);
  EXPECT_EQ(find(s, 0, "dp grads, chunk 0")->group, (std::vector<int>{0, 1, 2, 3}));  // dp x cp
}

TEST(MegatronPlan, DistributedOptimizerReduceScattersGradsAndGathersParams) {
  const Plan p = plan_of(
      "--num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 "
      "--micro-batch-size 1 "
      "--global-batch-size 8 --pipeline-model-parallel-size 2 --bf16 --vocab-size 1000 --world-size 4 "
      "--use-distributed-optimizer");
  const Schedule s = schedule(p, "1f1b");
  const PlanMessage* rs = find(s, 1, "dp grads, chunk 0");
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->op, "reduce_scatter");
  EXPECT_EQ(rs->dtype, DType::kFloat);
  EXPECT_EQ(rs->elements % 128, 0);  // padded to lcm(d, 128)
  const PlanMessage* ag = find(s, 1, "params, chunk 0");
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(ag->op, "all_gather");
  EXPECT_EQ(ag->dtype, DType::kBfloat16);
  EXPECT_EQ(ag->group, (std::vector<int>{0, 1}));     // tp-cp-ep-dp-pp with t = 1: dp ranks are adjacent
  EXPECT_EQ(find(s, 1, "found_inf (max)"), nullptr);  // bf16: no grad scaler
}

TEST(MegatronPlan, GqaAndSwigluParameterCounts) {
  auto a =
      parse_megatron_args(words("--num-layers 2 --hidden-size 4096 --ffn-hidden-size 11008 --num-attention-heads 32 "
                                "--seq-length 8 --max-position-embeddings 8 "
                                "--micro-batch-size 1 --global-batch-size 1 --vocab-size 100 --swiglu"));
  EXPECT_EQ(total_elements(layer_tensors(a)), 202434048);  // §8
  a = parse_megatron_args(words(
      "--num-layers 2 --hidden-size 4096 --ffn-hidden-size 11008 --num-attention-heads 32 --seq-length 8 "
      "--max-position-embeddings 8 "
      "--micro-batch-size 1 --global-batch-size 1 --vocab-size 100 --group-query-attention --num-query-groups 8"));
  // qkv = h (h + 2 g k) + (h + 2 g k), k = 128: 4096 * 6144 + 6144; proj 4096^2 + 4096.
  const std::int64_t attn = 4096LL * 6144 + 6144 + 4096LL * 4096 + 4096;
  EXPECT_EQ(total_elements(layer_tensors(a)), attn + 90192640 + 16384);
  const auto swiglu_default =
      parse_megatron_args(words("--num-layers 2 --hidden-size 4096 --num-attention-heads 32 --seq-length 8 "
                                "--max-position-embeddings 8 --micro-batch-size 1 "
                                "--global-batch-size 1 --vocab-size 100 --swiglu"));
  EXPECT_EQ(swiglu_default.ffn_hidden, 10880);  // int(4h * 2/3 / 64) * 64
}

TEST(MegatronPlan, RankOrderAndGroupsForWorld16) {
  const Plan p = plan_of(
      "--num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 "
      "--global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 --world-size 16 "
      "--vocab-size 1000");
  const Layout& l = p.layout;
  EXPECT_EQ(l.dp, 2);
  EXPECT_EQ(l.tp_groups.front(), (std::vector<int>{0, 1}));
  EXPECT_EQ(l.tp_groups.size(), 8u);
  EXPECT_EQ(l.dp_groups.front(), (std::vector<int>{0, 2}));
  EXPECT_EQ(l.dp_groups[1], (std::vector<int>{1, 3}));
  EXPECT_EQ(l.pp_groups.front(), (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(l.pp_groups.size(), 4u);
  EXPECT_EQ(l.embedding_groups.front(), (std::vector<int>{0, 12}));
  EXPECT_EQ(l.model_parallel_groups.front(), (std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13}));
}

TEST(MegatronPlan, InvalidConfigurationsNameMegatronsRule) {
  const std::string ok =
      "--hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 --micro-batch-size 1 "
      "--vocab-size 1000 ";
  EXPECT_EQ(usage_error(ok + "--num-layers 30 --global-batch-size 8 --pipeline-model-parallel-size 4"),
            "num_layers 30 is not divisible by pipeline size 4");
  EXPECT_NE(usage_error(ok + "--num-layers 24 --global-batch-size 8 --pipeline-model-parallel-size 4 "
                             "--num-layers-per-virtual-pipeline-stage 4")
                .find("number of layers per pipeline stage (6) must be divisible by number of layers per virtual "
                      "pipeline stage (4)"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 10 --world-size 8 --pipeline-model-parallel-size 2")
                .find("global batch size (10) is not divisible by micro batch size (1) times data parallel size (4)"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 8 --world-size 6 --pipeline-model-parallel-size 4")
                .find("world size (6) is not divisible by"),
            std::string::npos);
  EXPECT_NE(
      usage_error(ok + "--num-layers 8 --global-batch-size 8 --tensor-model-parallel-size 3").find("attention heads"),
      std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 8 --pipeline-model-parallel-size 2 "
                             "--num-layers-per-virtual-pipeline-stage 2 --no-overlap-p2p-communication")
                .find("greater than 2 with interleaved schedule"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 6 --pipeline-model-parallel-size 4 "
                             "--num-layers-per-virtual-pipeline-stage 1")
                .find("number of microbatches (6) modulo microbatch group size (4) must be 0 or >= pipeline size (4)"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 2 --pipeline-model-parallel-size 4 "
                             "--num-layers-per-virtual-pipeline-stage 1")
                .find("microbatch group size per virtual stage (4) must be >= pipeline size (4) and <= number of "
                      "microbatches (2)"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 6 --pipeline-model-parallel-size 4 "
                             "--num-layers-per-virtual-pipeline-stage 1 --megatron-version core_v0.9")
                .find("number of microbatches (6) is not divisible by pipeline-model-parallel-size (4)"),
            std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 8 --num-layers-per-virtual-pipeline-stage 1 "
                             "--num-virtual-stages-per-pipeline-rank 2")
                .find("cannot both be set"),
            std::string::npos);
  EXPECT_EQ(usage_error("--num-layers 8 --hidden-size 256"),
            "Megatron arguments: missing --num-attention-heads, --max-position-embeddings, --seq-length, "
            "--micro-batch-size, --global-batch-size, "
            "--vocab-size or --vocab-file");
  EXPECT_NE(usage_error(ok + "--num-layers eight --global-batch-size 8").find("--num-layers"), std::string::npos);
  EXPECT_NE(usage_error(ok + "--num-layers 8 --global-batch-size 8 --fp16 --bf16").find("--fp16 and --bf16"),
            std::string::npos);
}

TEST(MegatronPlan, AbsurdSizesAreBadInputNeverACrashAHangOrANegativeByteCount) {
  const std::string model = "--hidden-size 256 --num-attention-heads 8 --vocab-size 1000 ";
  const std::string batch =
      "--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 8 ";
  // 2^31-1 layers with p 1: refused at the documented limit, before any loop runs to INT_MAX.
  EXPECT_EQ(usage_error(model + batch + "--num-layers 2147483647"),
            "Megatron arguments: --num-layers 2147483647 is above the limit of 4096");
  // Sizes whose products overflow int64 (they gave negative byte counts).
  const std::string e1 = usage_error(
      model +
      "--num-layers 8 --seq-length 2147483647 --max-position-embeddings 2147483647 --micro-batch-size 2147483647 "
      "--global-batch-size 2147483647");
  EXPECT_NE(e1.find("overflows 64 bits"), std::string::npos) << e1;
  const std::string e2 = usage_error(
      "--hidden-size 2147483520 --ffn-hidden-size 1024 --num-attention-heads 8 --vocab-size "
      "9000000000000000000 --num-layers 8 " +
      batch);
  EXPECT_NE(e2.find("overflows 64 bits"), std::string::npos) << e2;
  // A plan that fits: every byte count positive, the biggest ones included.
  const Plan big = plan_of(model +
                           "--num-layers 8 --seq-length 16777216 --max-position-embeddings 16777216 --micro-batch-size "
                           "1 --global-batch-size 8 "
                           "--pipeline-model-parallel-size 2 --world-size 2");
  for (const auto& s : big.schedules) {
    for (const auto& m : s.messages) EXPECT_GT(m.bytes, 0) << m.what;
  }
  // A negative size: one short line naming the flag (not DBL_MAX in full).
  const std::string e3 =
      usage_error(batch + "--num-layers 8 --hidden-size -256 --num-attention-heads 8 --vocab-size 9");
  EXPECT_NE(e3.find("--hidden-size"), std::string::npos) << e3;
  EXPECT_LT(e3.size(), 160u) << e3;
  EXPECT_EQ(usage_error(model + batch + "--num-layers 8 --ffn-hidden-size nan")
                .rfind("Megatron arguments: argument --ffn-hidden-size: invalid int value: 'nan'", 0),
            0u);
  // Megatron's head rule (arguments.py): hidden_size % num_attention_heads == 0 unless --kv-channels is given.
  EXPECT_EQ(usage_error("--hidden-size 250 --num-attention-heads 8 --vocab-size 1000 --num-layers 8 " + batch),
            "hidden size (250) must be divisible by number of attention heads (8)");
  // 2e9 microbatches hung the plan: the limit says so at once.
  EXPECT_EQ(usage_error(model + "--num-layers 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 "
                                "--global-batch-size 2000000000"),
            "number of microbatches (2000000000 = global batch size / (micro batch size x data parallel size)) is "
            "above the limit of 16384");
  EXPECT_NE(usage_error(model + batch + "--num-layers 8 --world-size 2097152").find("above the limit of 1048576 ranks"),
            std::string::npos);
}

TEST(MegatronPlan, VocabFileMustBeARegularFile) {
  const std::string fifo = "/tmp/pipebench_vocab_fifo_" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string args =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
      "--micro-batch-size 1 "
      "--global-batch-size 1 --vocab-file ";
  try {
    (void)parse_megatron_args(words(args + fifo));  // blocked forever before
    ADD_FAILURE() << "a FIFO was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--vocab-file " + fifo + ": a FIFO"), std::string::npos) << e.what();
  }
  std::remove(fifo.c_str());
}

TEST(MegatronPlan, VocabFileTokensAreCounted) {
  const std::string path = "/tmp/pipebench_vocab_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream out(path);
    out << "{";
    for (int i = 0; i < 300; ++i) out << (i ? "," : "") << "\"tok" << i << "\": " << i;
    out << "}";
  }
  const auto a =
      parse_megatron_args(words("--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8 "
                                "--max-position-embeddings 8 --micro-batch-size 1 "
                                "--global-batch-size 1 --tokenizer-type GPT2BPETokenizer --vocab-file " +
                                path));
  EXPECT_EQ(a.vocab_size, 300);
  EXPECT_EQ(padded_vocab(a), 384);  // multiple of 128
  std::remove(path.c_str());
  EXPECT_THROW((void)parse_megatron_args(words(
                   "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
                   "--micro-batch-size 1 --global-batch-size 1 --vocab-file /nonexistent.json")),
               UsageError);
}

TEST(MegatronPlan, MegatronsOtherArgumentsAreListedUnknownOnesRefused) {
  const Plan p = plan_of(std::string(kSeed) + " --lr 3e-4 --use-flash-attn --attention-backend auto");
  EXPECT_EQ(p.args.ignored, (std::vector<std::string>{"--lr 3e-4", "--use-flash-attn", "--attention-backend auto"}));
  EXPECT_TRUE(p.args.unknown.empty());
  try {
    (void)plan_of(std::string(kSeed) + " --frobnicate 7");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "Megatron arguments: unrecognized arguments: --frobnicate 7: Megatron-LM would refuse it", 0),
              0u)
        << e.what();
  }
}

TEST(MegatronPlan, SequenceParallelEmbeddingAndOutputLayerGathers) {
  // t 2, SP, p 2, m 4, A = s 512 x b 2 x h 1024 = 1,048,576 (language_model_embedding.py, layers.py).
  const std::string base =
      "--num-layers 8 --hidden-size 1024 --num-attention-heads 16 --seq-length 512 --max-position-embeddings 512 "
      "--micro-batch-size 2 --global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
      "--bf16 --vocab-size 32000 --sequence-parallel";
  const Schedule s = schedule(plan_of(base), "1f1b");
  // Learned absolute positions: forward all-reduce then a local split; backward all-gather.
  EXPECT_EQ(find(s, 0, "TP embedding forward")->op, "all_reduce");
  EXPECT_EQ(count(s, 0, "all_gather", -1, "TP embedding backward (SP)"), 4);
  EXPECT_EQ(find(s, 0, "TP embedding backward (SP)")->elements, 512 * 2 * 1024);
  // Last stage (ranks 2, 3): the output layer re-gathers its sharded input for wgrad, once per microbatch.
  EXPECT_EQ(count(s, 2, "all_gather", -1, "TP output layer wgrad re-gather (SP)"), 4);
  EXPECT_EQ(find(s, 2, "TP output layer wgrad re-gather (SP)")->phase, Phase::kPipeline);
  // RoPE: the embedding reduce-scatters; its backward is still the all-gather.
  const Schedule rope = schedule(plan_of(base + " --position-embedding-type rope"), "1f1b");
  EXPECT_EQ(find(rope, 0, "TP embedding forward")->op, "reduce_scatter");
  EXPECT_EQ(count(rope, 0, "all_gather", -1, "TP embedding backward (SP)"), 4);
  // Deferred embedding wgrad: the re-gathers run in the drain.
  const Schedule deferred = schedule(plan_of(base + " --defer-embedding-wgrad-compute"), "1f1b");
  EXPECT_EQ(find(deferred, 2, "TP output layer wgrad re-gather (SP)")->phase, Phase::kCooldown);
  // Without SP neither gather exists.
  const Schedule no_sp =
      schedule(plan_of(base.substr(0, base.size() - std::string(" --sequence-parallel").size())), "1f1b");
  EXPECT_EQ(find(no_sp, 0, "TP embedding backward (SP)"), nullptr);
  EXPECT_EQ(find(no_sp, 2, "TP output layer wgrad re-gather (SP)"), nullptr);
}

// h 64, f 256, 2 layers, p 2, vocab 1000 -> 1024: stage 0 = word 65,536 + position 512 + layer 49,984;
// stage 1 = layer 49,984 + final norm 128 + output copy 65,536.
const char* kTinyBuckets =
    "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8 --max-position-embeddings 8 "
    "--micro-batch-size 1 --global-batch-size 2 --pipeline-model-parallel-size 2 --bf16 --vocab-size 1000 ";

std::vector<std::int64_t> sizes(const Schedule& s, int rank, const std::string& op, const std::string& what) {
  std::vector<std::int64_t> out;
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.op.is(op) && m.what == what) out.push_back(m.elements);
  }
  return out;
}

TEST(MegatronPlan, DistributedOptimizerGivesTheTiedEmbeddingItsOwnBucket) {
  const Schedule s = schedule(plan_of(std::string(kTinyBuckets) + "--use-distributed-optimizer"), "1f1b");
  // Rank 0, reverse order, 64-aligned starts (all sizes are multiples of 64): layer 49,984 + position 512
  // = 50,496, padded to lcm(d 1, 128): 50,560; then the word embedding alone: 65,536.
  EXPECT_EQ(sizes(s, 0, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{50560, 65536}));
  // Rank 1: the output copy comes first in reverse order: 65,536; then norm 128 + layer 49,984 = 50,112,
  // padded to 128: 50,176.
  EXPECT_EQ(sizes(s, 1, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{65536, 50176}));
  // --ddp-pad-buckets-for-high-nccl-busbw pads bucket ends to lcm(1, 128, 65536): 65,536 and 65,536.
  const Schedule busbw = schedule(
      plan_of(std::string(kTinyBuckets) + "--use-distributed-optimizer --ddp-pad-buckets-for-high-nccl-busbw"), "1f1b");
  EXPECT_EQ(sizes(busbw, 1, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{65536, 65536}));
  // Untied: no shared embedding, one bucket of 116,032 padded to 116,096.
  const Schedule untied = schedule(
      plan_of(std::string(kTinyBuckets) + "--use-distributed-optimizer --untie-embeddings-and-output-weights"), "1f1b");
  EXPECT_EQ(sizes(untied, 0, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{116096}));
}

TEST(MegatronPlan, OverlappedGradBucketsFollowTheRegistrationOrder) {
  // Rank 0, reverse TE order: fc2.bias 64, fc2.weight -> 16,448, fc1.bias -> 16,704, fc1.weight -> 33,088,
  // fc1 norm -> 33,216, qkv.bias -> 33,408, qkv.weight -> 45,696 >= 40,000: bucket 45,696. Then qkv norm
  // 128, proj.bias 192, proj.weight 4,288, position 4,800, word 70,336: bucket 70,336. (The order with
  // linear_qkv before linear_proj would close at 49,856.)
  const std::string overlap = std::string(kTinyBuckets) + "--overlap-grad-reduce ";
  const Schedule s = schedule(plan_of(overlap + "--ddp-bucket-size 40000"), "1f1b");
  EXPECT_EQ(sizes(s, 0, "all_reduce", "dp grads, chunk 0"), (std::vector<std::int64_t>{45696, 70336}));
  EXPECT_EQ(sizes(s, 1, "all_reduce", "dp grads, chunk 0").size(), 1u);  // pp rank > 0: one bucket
  // --ddp-num-buckets 4: 116,032 // 4 = 29,008; closes after fc1.weight (33,088), then the rest 82,944.
  const Schedule k = schedule(plan_of(overlap + "--ddp-num-buckets 4"), "1f1b");
  EXPECT_EQ(sizes(k, 0, "all_reduce", "dp grads, chunk 0"), (std::vector<std::int64_t>{33088, 82944}));
}

TEST(MegatronPlan, InterleavedReceivesArePostedOneStepEarly) {
  const Schedule s =
      schedule(plan_of(std::string(kSeed) + " --num-layers-per-virtual-pipeline-stage 2"), "interleaved", 4);
  // Rank 1: W 16 of T 64, R 48. Activations for forwards 0..16 are received in warm-up (17), 17..63 in
  // steady (47). Grads: backward 0 pre-posted in warm-up, 1..48 in steady, 49..63 in cool-down (15).
  auto phase_count = [&](const std::string& what, Phase ph) {
    std::int64_t n = 0;
    for (const auto& m : s.messages) {
      if (m.rank == 1 && m.op == "recv" && m.what == what && m.phase == ph) n += m.count;
    }
    return n;
  };
  EXPECT_EQ(phase_count("activation", Phase::kWarmup), 17);
  EXPECT_EQ(phase_count("activation", Phase::kSteady), 47);
  EXPECT_EQ(phase_count("activation grad", Phase::kWarmup), 1);
  EXPECT_EQ(phase_count("activation grad", Phase::kSteady), 48);
  EXPECT_EQ(phase_count("activation grad", Phase::kCooldown), 15);
}

TEST(MegatronPlan, FlagsThatChangeMessages) {
  const std::string base =
      "--num-layers 4 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
      "--world-size 8 --bf16 --vocab-size 1000 ";
  // m = 8 / (1 x d 2) = 4. No mask in the dataloader: no mask broadcast.
  EXPECT_EQ(find(schedule(plan_of(base + "--no-create-attention-mask-in-dataloader"), "1f1b"), 0, "attention mask"),
            nullptr);
  // Fused cross entropy on the last stage (rank 4: rank = t + 2 (d + 2 p)): max of s b = 64 fp32, then 2 s b = 128, m 4
  // each.
  const Schedule ce = schedule(plan_of(base + "--cross-entropy-loss-fusion"), "1f1b");
  EXPECT_EQ(count(ce, 4, "all_reduce", -1, "cross-entropy (max)"), 4);
  EXPECT_EQ(find(ce, 4, "cross-entropy (sum, fused)")->elements, 128);
  EXPECT_EQ(find(ce, 4, "cross-entropy (max, sum, sum)"), nullptr);
  // --qk-layernorm with t 2, no SP: q and k LayerNorms of d 64 (weight + bias) = 256 per layer, 2 layers.
  EXPECT_EQ(find(schedule(plan_of(base + "--qk-layernorm"), "1f1b"), 0, "qk-layernorm params")->elements, 2 * 256);
  // Per-token loss: the token count broadcast over the pipeline group, summed over DP.
  const Schedule tok = schedule(plan_of(base + "--calculate-per-token-loss"), "1f1b");
  EXPECT_EQ(count(tok, 0, "broadcast", -1, "num tokens (per-token loss)"), 1);
  EXPECT_EQ(count(tok, 0, "all_reduce", -1, "num tokens (per-token loss)"), 1);
  // Two distributed-optimizer instances over d 2: shard groups of 1 rank, grads all-reduced across them.
  const Schedule inst =
      schedule(plan_of(base + "--use-distributed-optimizer --num-distributed-optimizer-instances 2"), "1f1b");
  EXPECT_EQ(find(inst, 0, "dp grads, chunk 0")->group, (std::vector<int>{0}));
  EXPECT_EQ(find(inst, 0, "dp grads across optimizer instances, chunk 0")->group, (std::vector<int>{0, 2}));
}

TEST(MegatronPlan, JsonCarriesTheSchemaLayoutGroupsAndMessages) {
  const auto j = plan_to_json(plan_of(std::string(kSeed) + " --num-layers-per-virtual-pipeline-stage 2"));
  EXPECT_EQ(j["schema"], "pipebench.plan/1");
  EXPECT_EQ(j["layout"]["pp"], 4);
  EXPECT_EQ(j["layout"]["vp"], 4);
  EXPECT_EQ(j["groups"]["embedding"][0], (std::vector<int>{0, 3}));
  ASSERT_EQ(j["schedules"].size(), 2u);
  EXPECT_EQ(j["schedules"][1]["name"], "interleaved");
  const auto& m = j["schedules"][0]["messages"][0];
  for (const char* key : {"id", "rank", "op", "group", "peer", "elements", "dtype", "bytes", "count", "phase"}) {
    EXPECT_TRUE(m.contains(key)) << key;
  }
  EXPECT_EQ(j["params"][0]["params"], 1464850432);
}

// Mixtral-like on 32 ranks: 8 experts, top-2, EP 4, TP 2 (SP), PP 2, 4 layers, h 4096, f 14336, GQA 8,
// swiglu, RMSNorm, rope, no biases, bf16. dp = 32 / (2 x 2) = 8; expert grid: etp 2 x ep 4 x pp 2 = 16,
// expert dp = 32 / 16 = 2.
// The 1F1B schedule of a plan, by value (the plan itself is a temporary).
Schedule moe_1f1b(const std::string& args) { return schedule(plan_of(args), "1f1b"); }

const char* kMoe32 =
    "--num-layers 4 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
    "--num-query-groups 8 --swiglu --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 "
    "--global-batch-size 16 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel "
    "--bf16 --vocab-size 32000 --num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 4 "
    "--moe-token-dispatcher-type alltoall --world-size 32 --disable-bias-linear --normalization RMSNorm "
    "--position-embedding-type rope";

TEST(MegatronPlan, MoeExpertGroupsFollowTheExpertRankGenerator) {
  const Plan p = plan_of(kMoe32);
  const Layout& l = p.layout;
  EXPECT_TRUE(l.moe);
  EXPECT_EQ(l.ep, 4);
  EXPECT_EQ(l.etp, 2);
  EXPECT_EQ(l.edp, 2);
  // Expert order tp-cp-ep-dp-pp without cp: rank = etp + 2 (ep + 4 (edp + 2 pp)). Rank 0's EP group
  // varies ep: {0,2,4,6}; expert TP {0,1}; expert TP x EP {0..7}; expert DP varies edp (stride 8): {0,8};
  // pipeline stage 1 starts at 16: rank 16's expert DP group {16,24}.
  EXPECT_EQ(l.ep_groups.front(), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(l.expert_tp_groups.front(), (std::vector<int>{0, 1}));
  EXPECT_EQ(l.tp_ep_groups.front(), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Layout::group_of(l.expert_dp_groups, l.expert_dp_index, 0), (std::vector<int>{0, 8}));
  EXPECT_EQ(Layout::group_of(l.expert_dp_groups, l.expert_dp_index, 16), (std::vector<int>{16, 24}));
  EXPECT_EQ(Layout::group_of(l.ep_groups, l.ep_index, 9), (std::vector<int>{9, 11, 13, 15}));
  // 32 ranks / 4 per EP group = 8 groups; / 2 per expert DP group = 16.
  EXPECT_EQ(l.ep_groups.size(), 8u);
  EXPECT_EQ(l.expert_dp_groups.size(), 16u);
  // The dense DP group is unchanged: tp-cp-ep-dp-pp with t 2: {0,2,...,14}.
  EXPECT_EQ(Layout::group_of(l.dp_cp_groups, l.dp_cp_index, 0), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14}));
}

TEST(MegatronPlan, MoeParametersAndExpertGradientsOnTheExpertDpGroup) {
  const Plan p = plan_of(kMoe32);
  const Schedule s = schedule(p, "1f1b");
  // Per TP rank, stage 0 (embedding + layers 0, 1): embedding 32000 x 4096 / 2 = 65536000; per layer
  // attention proj 4096^2/2 = 8388608 + qkv 4096 x (4096 + 2 x 8 x 128) / 2 = 12582912, input norm 4096,
  // pre_mlp norm 4096, router 8 x 4096 = 32768 (dense: 21012480 per layer); experts 8 / EP 4 = 2 local,
  // fc1 4096 x 2 x 14336 / 2 = 58720256 + fc2 14336 x 4096 / 2 = 29360128 each: 176160768 per layer.
  // Dense 65536000 + 2 x 21012480 = 107560960; experts 2 x 176160768 = 352321536; total 459882496.
  EXPECT_EQ(s.params.at(0).params, 459882496);
  // Stage 1: final norm 4096 + output layer 65536000 instead of the embedding: 459886592.
  EXPECT_EQ(s.params.at(1).params, 459886592);
  // Without the distributed optimizer: dense grads all-reduced on DP {0,2,...,14}, expert grads (float for
  // bf16) on the expert DP group {0,8}.
  const PlanMessage* dense = find(s, 0, "dp grads, chunk 0");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(dense->elements, 107560960);
  EXPECT_EQ(dense->group.size(), 8u);
  const PlanMessage* expert = find(s, 0, "expert dp grads, chunk 0");
  ASSERT_NE(expert, nullptr);
  EXPECT_EQ(expert->op, "all_reduce");
  EXPECT_EQ(expert->elements, 352321536);
  EXPECT_EQ(expert->dtype, DType::kFloat);
  EXPECT_EQ(expert->group, (std::vector<int>{0, 8}));
  // With it: reduce-scatter and all-gather of the expert bucket (every tensor a multiple of 128: no padding)
  // on {0,8}, the dense ones on the DP group.
  const Schedule d = moe_1f1b(std::string(kMoe32) + " --use-distributed-optimizer");
  EXPECT_EQ(count(d, 0, "reduce_scatter", -1, "expert dp grads, chunk 0"), 1);
  const PlanMessage* gather = find(d, 0, "expert params, chunk 0");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->op, "all_gather");
  EXPECT_EQ(gather->elements, 352321536);
  EXPECT_EQ(gather->dtype, DType::kBfloat16);
  EXPECT_EQ(gather->group, (std::vector<int>{0, 8}));
  EXPECT_EQ(find(d, 0, "dp grads, chunk 0")->op, "reduce_scatter");
  // The router weights (8 x 4096 per layer) join the norms in the SP all-reduce over TP: stage 0 has
  // 2 x (4096 + 4096 + 32768) = 81920.
  EXPECT_EQ(find(s, 0, "sequence-parallel params")->elements, 81920);
  // The note states the routing-dependence caveat.
  bool noted = false;
  for (const auto& n : p.notes) noted = noted || n.find("routing-dependent") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace pipebench

namespace pipebench {
namespace {

// The plan's P2P halves are send and recv; everything else it emits is a collective.
// 10 layers on p 4 with first 2 / last 2: each stage's params, DP gradient bucket and valid v follow its
// layers (2, 3, 3, 2; pipeline_split_test.cc has the offsets).
TEST(MegatronPlan, UnevenStagesSizeEachStagesParamsAndGradients) {
  const std::string model = std::string(kTinyBuckets) + "--num-layers 10 --pipeline-model-parallel-size 4 ";
  const Plan p = plan_of(model + "--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2");
  const std::int64_t layer = total_elements(layer_tensors(p.args));
  ASSERT_EQ(layer, 49984);
  const std::int64_t word = 1024 * 64, position = 8 * 64, final_norm = 128;
  const Schedule s = schedule(p, "1f1b");
  ASSERT_EQ(s.params.size(), 4u);
  const std::vector<std::int64_t> want = {word + position + 2 * layer, 3 * layer, 3 * layer,
                                          2 * layer + final_norm + word};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(s.params[static_cast<std::size_t>(r)].params, want[static_cast<std::size_t>(r)]) << r;
    EXPECT_EQ(s.params[static_cast<std::size_t>(r)].layers, r == 0 || r == 3 ? 2 : 3) << r;
  }
  // One DP bucket per stage (dp 1, no overlap): the stage's own parameters.
  EXPECT_EQ(sizes(s, 1, "all_reduce", "dp grads, chunk 0"), (std::vector<std::int64_t>{3 * layer}));
  EXPECT_EQ(sizes(s, 0, "all_reduce", "dp grads, chunk 0"), (std::vector<std::int64_t>{want[0]}));
  EXPECT_TRUE(p.valid_v.empty());  // v must divide 2, 3 and 2
  EXPECT_NE(std::find_if(p.notes.begin(), p.notes.end(),
                         [](const std::string& n) { return n.rfind("uneven pipeline split", 0) == 0; }),
            p.notes.end());
  // 16 layers, first 2 / last 2: 6 per middle stage, so v 2 is valid and its chunks split each stage.
  const Plan v2 = plan_of(std::string(kTinyBuckets) +
                          "--num-layers 16 --pipeline-model-parallel-size 4 --global-batch-size 8 "
                          "--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2");
  EXPECT_EQ(v2.valid_v, (std::vector<int>{2}));
  const Schedule i2 = schedule(v2, "interleaved", 2);
  std::vector<int> layers;
  for (const auto& c : i2.params) layers.push_back(c.layers);
  EXPECT_EQ(layers, (std::vector<int>{1, 1, 3, 3, 3, 3, 1, 1}));
  EXPECT_EQ(i2.params[2].params, 3 * layer);
  // The embedding and loss slots: 10 + 2 = 12, so 2, 3, 3, 2 again.
  const Plan slots = plan_of(model + "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split");
  EXPECT_EQ(schedule(slots, "1f1b").params[0].params, want[0]);
  EXPECT_EQ(schedule(slots, "1f1b").params[3].params, want[3]);
}

TEST(MegatronPlan, UnevenStageRulesAreOneLineNamingTheArgument) {
  const std::string model = std::string(kTinyBuckets) + "--num-layers 10 --pipeline-model-parallel-size 4 ";
  EXPECT_NE(usage_error(model + "--decoder-first-pipeline-num-layers 3 --decoder-last-pipeline-num-layers 2")
                .find("must be divisible by the middle pipeline size (2)"),
            std::string::npos);
  EXPECT_NE(usage_error(model + "--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 2 "
                                "--num-virtual-stages-per-pipeline-rank 2")
                .find("number of layers on each middle pipeline rank (3) must be divisible by the virtual pipeline "
                      "size 2"),
            std::string::npos);
  // arguments.py: with uneven stages the virtual size comes from --num-virtual-stages-per-pipeline-rank.
  EXPECT_NE(usage_error(std::string(kTinyBuckets) +
                        "--num-layers 11 --pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers 2 "
                        "--num-layers-per-virtual-pipeline-stage 1")
                .find("--num-layers-per-virtual-pipeline-stage 1: use --num-virtual-stages-per-pipeline-rank"),
            std::string::npos);
  EXPECT_NE(usage_error(model + "--decoder-last-pipeline-num-layers 1 --account-for-embedding-in-pipeline-split")
                .find("cannot be combined"),
            std::string::npos);
  EXPECT_NE(usage_error(model + "--decoder-first-pipeline-num-layers 0").find("--decoder-first-pipeline-num-layers"),
            std::string::npos);
  EXPECT_NE(usage_error(model + "--account-for-embedding-in-pipeline-split").find("(11) must be divisible"),
            std::string::npos);
  EXPECT_NE(usage_error(model + "--decoder-first-pipeline-num-layers 1 --pipeline-model-parallel-layout Et|tt|tt|tL")
                .find("--pipeline-model-parallel-layout cannot be set with"),
            std::string::npos);
}

// --fp8-param-gather (distributed optimizer): the TE linear weights in a buffer of their own, reduced in
// the grad dtype and gathered as uint8; the rest (norms, biases, embeddings) bucketed apart in bf16.
TEST(MegatronPlan, Fp8ParamGatherGathersTheTeLinearWeightsInOneByte) {
  const std::string distopt = std::string(kTinyBuckets) + "--use-distributed-optimizer ";
  const Schedule s = schedule(plan_of(distopt + "--fp8-param-gather --fp8-format hybrid"), "1f1b");
  // Rank 1: FP8 buffer proj 4,096 + qkv 12,288 + fc1 16,384 + fc2 16,384 = 49,152 (a multiple of 128);
  // then the bf16 buffer: the output copy alone, 65,536, and norms and biases 128 + 832 = 960 -> 1,024.
  EXPECT_EQ(sizes(s, 1, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{49152, 65536, 1024}));
  EXPECT_EQ(sizes(s, 1, "all_gather", "params (FP8), chunk 0"), (std::vector<std::int64_t>{49152}));
  EXPECT_EQ(sizes(s, 1, "all_gather", "params, chunk 0"), (std::vector<std::int64_t>{65536, 1024}));
  // Rank 0: the bf16 buffer's layer biases and norms 832 + position 512 = 1,344 -> 1,408, then the word
  // embedding alone; without FP8 the same params fill 50,560 + 65,536.
  EXPECT_EQ(sizes(s, 0, "reduce_scatter", "dp grads, chunk 0"), (std::vector<std::int64_t>{49152, 1408, 65536}));
  for (const auto& m : s.messages) {
    if (m.op == "all_gather" && m.what == "params (FP8), chunk 0") {
      EXPECT_EQ(m.dtype, DType::kUint8);
      EXPECT_EQ(m.bytes, m.elements);  // one byte per element
    } else if (m.op == "all_gather") {
      EXPECT_EQ(m.dtype, DType::kBfloat16) << m.what;
      EXPECT_EQ(m.bytes, 2 * m.elements);
    } else if (m.op == "reduce_scatter") {
      EXPECT_EQ(m.dtype, DType::kFloat);  // grads keep the grad dtype
    }
  }
  // The local spec has no TE modules: nothing is FP8.
  const Schedule local =
      schedule(plan_of(distopt + "--fp8-param-gather --fp8-format hybrid --transformer-impl local"), "1f1b");
  EXPECT_TRUE(sizes(local, 1, "all_gather", "params (FP8), chunk 0").empty());
  // Megatron's rules: the distributed optimizer and FP8 mode.
  EXPECT_NE(usage_error(std::string(kTinyBuckets) + "--fp8-param-gather --fp8-format hybrid")
                .find("--fp8-param-gather needs --use-distributed-optimizer"),
            std::string::npos);
  EXPECT_NE(usage_error(distopt + "--fp8-param-gather").find("--fp8-param-gather needs --fp8-format"),
            std::string::npos);
  // What the plan leaves out is named: per-block scales, and bf16 first / last layers.
  const Plan mx =
      plan_of(distopt + "--fp8-param-gather --fp8-format hybrid --fp8-recipe mxfp8 --first-last-layers-bf16");
  const auto noted = [&](const std::string& start) {
    return std::any_of(mx.notes.begin(), mx.notes.end(), [&](const std::string& n) { return n.rfind(start, 0) == 0; });
  };
  EXPECT_TRUE(noted("--fp8-recipe mxfp8: the FP8 all-gathers are listed at 1 byte per element"));
  EXPECT_TRUE(noted("--first-last-layers-bf16 is not modelled with --fp8-param-gather"));
}

// The step's checks are its scalar all-reduces over the model-parallel group or the world, after the pipeline:
// every rank's of an fp16 plan has the five, and nothing else is one (the gradients, the embedding, the loss).
TEST(MegatronPlan, TheStepsChecksAreItsScalarAllReduces) {
  const Plan p = plan_of(
      "--num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
      "--micro-batch-size 1 --global-batch-size 8 --pipeline-model-parallel-size 4 --world-size 8 "
      "--vocab-size 1000 --fp16");
  std::map<int, int> checks;
  for (const auto& msg : p.schedules.at(0).messages) {
    if (!is_step_check(msg)) continue;
    ++checks[msg.rank];
    EXPECT_EQ(msg.op, "all_reduce") << msg.what;
    EXPECT_EQ(msg.bytes, 4) << msg.what;
    EXPECT_GE(msg.group.size(), 4u) << msg.what;  // the model-parallel group (tp 1 x pp 4) or the world
  }
  EXPECT_EQ(checks.size(), 8u);
  for (const auto& [rank, n] : checks) EXPECT_EQ(n, 5) << rank;
  PlanMessage loss;
  loss.op = "all_reduce";
  loss.phase = Phase::kAfter;
  loss.what = "loss";
  EXPECT_FALSE(is_step_check(loss));
  loss.what = "grad norm (sum)";
  EXPECT_TRUE(is_step_check(loss));
  loss.phase = Phase::kPipeline;  // only after the pipeline
  EXPECT_FALSE(is_step_check(loss));
}

}  // namespace
}  // namespace pipebench
