// SPDX-License-Identifier: Apache-2.0
// Per-layer message classes in the plan: CP attention exchange per cp_comm_type, recompute, the qkv
// gather for fewer query groups than TP ranks. Every expected number is worked out in the comment
// above it from the Megatron-LM / TransformerEngine source cited in src/megatron/layer_comm.cc.
#include "megatron/layer_comm.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "megatron/plan.h"

namespace pipebench {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Plan plan_of(const std::string& args) { return make_plan(parse_megatron_args(words(args)), 0); }

// By value: a reference into `p` bound at a call with a temporary name or plan would dangle (g++ 13
// -Wdangling-reference rightly refuses `const Schedule& s = schedule(p, "1f1b")`).
Schedule schedule(const Plan& p, const std::string& name, int v = 1) {
  for (const auto& s : p.schedules) {
    if (s.id == ScheduleId{name, v}) return s;
  }
  throw std::runtime_error("no schedule " + name);
}

// Sum of the counts of rank's messages with this op, elements (or -1) and `what`.
std::int64_t count(const Schedule& s, int rank, const std::string& op, std::int64_t elements, const std::string& what) {
  std::int64_t n = 0;
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.op.is(op) && (elements < 0 || m.elements == elements) && m.what == what) n += m.count;
  }
  return n;
}

const PlanMessage* find(const Schedule& s, int rank, const std::string& what) {
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.what == what) return &m;
  }
  return nullptr;
}

// Llama-70B-like: h 8192, 64 heads, 8 query groups (d = 128), s 8192, t 8, cp 2, p 4, 80 layers, SP, bf16.
const char* kLlama =
    "--num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64 --group-query-attention "
    "--num-query-groups 8 --swiglu --seq-length 8192 --max-position-embeddings 8192 --micro-batch-size 1 "
    "--global-batch-size 8 --tensor-model-parallel-size 8 --context-parallel-size 2 "
    "--pipeline-model-parallel-size 4 --sequence-parallel --position-embedding-type rope --bf16 --vocab-size 128256";

TEST(LayerComm, ContextParallelP2pRingOutweighsThePipelineP2p) {
  const Plan p = plan_of(kLlama);
  const Schedule s = schedule(p, "1f1b");
  // World 8*2*4 = 64, d = 1, m = 8. KV block = 2 (k, v) x b 1 x s/cp 4096 x groups/t 1 x d 128 =
  // 1,048,576 elements (2 MiB bf16). Per layer and microbatch: forward cp-1 = 1 exchange; backward cp = 2
  // steps (KV at step 0, dKV at step cp-1; no middle steps with cp 2). 20 layers per stage.
  const std::int64_t kv = 2LL * 1 * 4096 * 1 * 128;
  EXPECT_EQ(count(s, 0, "sendrecv", kv, "CP KV ring forward (p2p)"), 1 * 20 * 8);
  EXPECT_EQ(count(s, 0, "sendrecv", kv, "CP KV/dKV ring backward (p2p)"), 2 * 20 * 8);
  EXPECT_EQ(count(s, 0, "sendrecv", 2 * kv, "CP KV/dKV ring backward (p2p)"), 0);
  // tp-cp-ep-dp-pp: rank = t + 8 (c + 2 (d + p)): the CP peer of rank 0 is rank 8.
  EXPECT_EQ(find(s, 0, "CP KV ring forward (p2p)")->group, (std::vector<int>{0, 8}));
  EXPECT_EQ(find(s, 0, "CP KV ring forward (p2p)")->bytes, 2 * 1048576);
  // CP bytes of rank 0: 480 x 2 MiB = 960 MiB; pipeline P2P of rank 0: 8 sends + 8 receives of
  // [s/cp/t 512, b 1, h 8192] = 4,194,304 elements (8 MiB) = 128 MiB.
  std::int64_t cp_bytes = 0, p2p_bytes = 0;
  for (const auto& m : s.messages) {
    if (m.rank != 0) continue;
    if (m.op == "sendrecv") cp_bytes += m.bytes * m.count;
    if (m.op == "send" || m.op == "recv") p2p_bytes += m.bytes * m.count;
  }
  EXPECT_EQ(cp_bytes, 480LL * 2 * 1048576);
  EXPECT_EQ(p2p_bytes, 16LL * 8 * 1048576);
}

// h 512, 8 heads (d 64), 2 query groups, s 1024, b 2, cp 4, t 1, p 1, 2 layers, global batch 2: m = 1.
const char* kSmallCp =
    "--num-layers 2 --hidden-size 512 --num-attention-heads 8 --group-query-attention --num-query-groups 2 "
    "--seq-length 1024 --max-position-embeddings 1024 --micro-batch-size 2 --global-batch-size 2 "
    "--context-parallel-size 4 --world-size 4 --bf16 --vocab-size 1000";

TEST(LayerComm, P2pRingWithFourRanksSendsKvAndDkvInTheMiddleSteps) {
  const Schedule s = schedule(plan_of(kSmallCp), "1f1b");
  // KV block = 2 x b 2 x s/cp 256 x groups 2 x d 64 = 131,072. Forward 3 per layer; backward step 0 and
  // step 3 one block each, steps 1 and 2 two blocks (KV and dKV): 2 layers x m 1.
  EXPECT_EQ(count(s, 0, "sendrecv", 131072, "CP KV ring forward (p2p)"), 3 * 2);
  EXPECT_EQ(count(s, 0, "sendrecv", 131072, "CP KV/dKV ring backward (p2p)"), 2 * 2);
  EXPECT_EQ(count(s, 0, "sendrecv", 262144, "CP KV/dKV ring backward (p2p)"), 2 * 2);
  EXPECT_EQ(find(s, 3, "CP KV ring forward (p2p)")->group, (std::vector<int>{0, 1, 2, 3}));
}

TEST(LayerComm, A2aAllgatherAndHierarchicalTypes) {
  // Local q: b 2 x s/cp 256 x heads 8 x d 64 = 262,144; local k (or v): 2 x 256 x 2 x 64 = 65,536.
  const Schedule a2a = schedule(plan_of(std::string(kSmallCp) + " --cp-comm-type a2a"), "1f1b");
  // Forward: q and out (q-sized), k and v; backward: dout and dq, dk and dv. 2 layers, m 1.
  EXPECT_EQ(count(a2a, 0, "alltoall", 262144, "CP attention all-to-all forward (a2a)"), 2 * 2);
  EXPECT_EQ(count(a2a, 0, "alltoall", 65536, "CP attention all-to-all forward (a2a)"), 2 * 2);
  EXPECT_EQ(count(a2a, 0, "alltoall", 262144, "CP attention all-to-all backward (a2a)"), 2 * 2);
  EXPECT_EQ(count(a2a, 0, "alltoall", 65536, "CP attention all-to-all backward (a2a)"), 2 * 2);
  EXPECT_EQ(count(a2a, 0, "sendrecv", -1, "CP KV ring forward (p2p)"), 0);
  // allgather: gathered k = cp 4 x 65,536 = 262,144 (= b s groups d = 2 x 1024 x 2 x 64); forward
  // gathers k, v; backward gathers them again and reduce-scatters dk, dv.
  const Schedule ag = schedule(plan_of(std::string(kSmallCp) + " --cp-comm-type allgather"), "1f1b");
  EXPECT_EQ(count(ag, 0, "all_gather", 262144, "CP KV gather forward (allgather)"), 2 * 2);
  EXPECT_EQ(count(ag, 0, "all_gather", 262144, "CP KV gather backward (allgather)"), 2 * 2);
  EXPECT_EQ(count(ag, 0, "reduce_scatter", 262144, "CP KV gather backward (allgather)"), 2 * 2);
  // a2a+p2p with sizes 2 x 2: all-to-all in {0,1}, ring in {0,2}; ring KV block = 2 x 65,536; forward
  // 1 per layer, backward 2.
  const Schedule h = schedule(
      plan_of(std::string(kSmallCp) + " --cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes 2 2"), "1f1b");
  EXPECT_EQ(find(h, 0, "CP attention all-to-all forward (a2a+p2p)")->group, (std::vector<int>{0, 1}));
  EXPECT_EQ(find(h, 0, "CP KV ring forward (a2a+p2p)")->group, (std::vector<int>{0, 2}));
  EXPECT_EQ(count(h, 0, "sendrecv", 131072, "CP KV ring forward (a2a+p2p)"), 1 * 2);
  EXPECT_EQ(count(h, 0, "sendrecv", 131072, "CP KV/dKV ring backward (a2a+p2p)"), 2 * 2);
  EXPECT_EQ(count(h, 0, "alltoall", 262144, "CP attention all-to-all forward (a2a+p2p)"), 2 * 2);
  // One type per layer: layer 0 p2p, layer 1 allgather.
  const Schedule mixed = schedule(plan_of(std::string(kSmallCp) + " --cp-comm-type p2p allgather"), "1f1b");
  EXPECT_EQ(count(mixed, 0, "sendrecv", 131072, "CP KV ring forward (p2p)"), 3 * 1);
  EXPECT_EQ(count(mixed, 0, "all_gather", 262144, "CP KV gather forward (allgather)"), 2 * 1);
}

// t 2 without SP, p 2, 8 layers, m 4, h 256 (A = s 64 x b 1 x h 256 = 16,384).
const char* kRecompute =
    "--num-layers 8 --hidden-size 256 --num-attention-heads 4 --seq-length 64 --max-position-embeddings 64 "
    "--micro-batch-size 1 --global-batch-size 4 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
    "--bf16 --vocab-size 1000 ";

TEST(LayerComm, FullRecomputeRepeatsTheForwardCollectivesOfRecomputedLayers) {
  // 1F1B: one chunk of 4 layers per rank. block with 1 layer: 1 recomputed layer x 2 forward all-reduces
  // x m 4 = 8; uniform: all 4 layers, 32. The plain TP count stays 4 x 4 x 4 = 64.
  const std::string full = std::string(kRecompute) + "--recompute-granularity full ";
  const Schedule block = schedule(plan_of(full + "--recompute-method block --recompute-num-layers 1"), "1f1b");
  EXPECT_EQ(count(block, 0, "all_reduce", 16384, "TP per layer, recompute"), 2 * 1 * 4);
  EXPECT_EQ(count(block, 0, "all_reduce", 16384, "TP per layer"), 4 * 4 * 4);
  const Schedule uniform = schedule(plan_of(full + "--recompute-method uniform --recompute-num-layers 1"), "1f1b");
  EXPECT_EQ(count(uniform, 1, "all_reduce", 16384, "TP per layer, recompute"), 2 * 4 * 4);
  // Interleaved v 2: chunks of 2 layers, block recomputes the first layer of each: 2 layers x 2 x 4 = 16.
  const Plan vp =
      plan_of(full + "--recompute-method block --recompute-num-layers 1 --num-layers-per-virtual-pipeline-stage 2");
  EXPECT_EQ(count(schedule(vp, "interleaved", 2), 0, "all_reduce", 16384, "TP per layer, recompute"), 2 * 2 * 4);
  // With SP: 2 all-gathers and 2 reduce-scatters per recomputed layer.
  const Schedule sp =
      schedule(plan_of(full + "--recompute-method uniform --recompute-num-layers 2 --sequence-parallel"), "1f1b");
  EXPECT_EQ(count(sp, 0, "all_gather", 16384, "TP per layer (SP), recompute"), 2 * 4 * 4);
  EXPECT_EQ(count(sp, 0, "reduce_scatter", 16384, "TP per layer (SP), recompute"), 2 * 4 * 4);
  // Selective recompute re-runs no collective.
  const Schedule selective = schedule(plan_of(std::string(kRecompute) + "--recompute-activations"), "1f1b");
  EXPECT_EQ(count(selective, 0, "all_reduce", -1, "TP per layer, recompute"), 0);
  // CP p2p layers recompute their forward ring too: cp 2, 2 layers, m 1: 1 x 2 x 1.
  const Schedule cp = schedule(plan_of("--num-layers 2 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
                                       "--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 1 "
                                       "--context-parallel-size 2 --world-size 2 --bf16 --vocab-size 1000 "
                                       "--recompute-granularity full --recompute-method uniform "
                                       "--recompute-num-layers 1"),
                               "1f1b");
  EXPECT_EQ(count(cp, 0, "sendrecv", -1, "CP KV ring forward (p2p), recompute"), 1 * 2 * 1);
}

TEST(LayerComm, FewerQueryGroupsThanTpRanksGatherTheQkvOutput) {
  // 8 groups with t 16 (allowed: a divisor of t). qkv output = s/cp 128 x b 1 x (h 8192 + 2 x 8 x 128) =
  // 1,310,720; one all-gather forward, one reduce-scatter backward per layer; 2 layers, m 1. The KV block
  // of a CP ring then holds 1 group per rank.
  const Plan p = plan_of(
      "--num-layers 2 --hidden-size 8192 --num-attention-heads 64 --group-query-attention --num-query-groups 8 "
      "--seq-length 256 --max-position-embeddings 256 --micro-batch-size 1 --global-batch-size 1 "
      "--tensor-model-parallel-size 16 --context-parallel-size 2 --world-size 32 --bf16 --vocab-size 1000");
  const Schedule s = schedule(p, "1f1b");
  EXPECT_EQ(count(s, 0, "all_gather", 1310720, "TP qkv gather (query groups < t)"), 2);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 1310720, "TP qkv gather (query groups < t)"), 2);
  EXPECT_EQ(count(s, 0, "sendrecv", 2 * 128 * 1 * 128, "CP KV ring forward (p2p)"), 2);
}

TEST(LayerComm, RulesOfTheRecomputeAndCpArguments) {
  auto error = [](const std::string& extra) {
    try {
      (void)plan_of(std::string(kSmallCp) + " " + extra);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("--recompute-granularity full --recompute-num-layers 1").find("needs --recompute-method"),
            std::string::npos);
  EXPECT_NE(error("--recompute-granularity full --recompute-method block").find("--recompute-num-layers"),
            std::string::npos);
  EXPECT_NE(error("--recompute-granularity selective --recompute-method block").find("selective takes no"),
            std::string::npos);
  EXPECT_NE(error("--cp-comm-type ring").find("--cp-comm-type ring"), std::string::npos);
  EXPECT_NE(error("--cp-comm-type p2p p2p p2p").find("one per layer (2)"), std::string::npos);
  EXPECT_NE(error("--cp-comm-type a2a+p2p").find("--hierarchical-context-parallel-sizes must be set"),
            std::string::npos);
  EXPECT_NE(error("--cp-comm-type a2a+p2p --hierarchical-context-parallel-sizes 2 4").find("product (8)"),
            std::string::npos);
}

// A Mixtral-like layout: 8 experts, top-2, EP 4, TP 2 (SP), PP 2, world 16, 4 layers (2 per stage), h 4096,
// s 4096, b 1, global batch 8. dp = 16 / (2 x 2) = 4, m = 8 / (1 x 4) = 2. Expert grid (parallel_state.py):
// expert tp = tp = 2, expert dp = 16 / (2 x 4 x 2) = 1; rank = etp + 2 (ep + 4 (edp + pp)).
// The 1F1B schedule of a plan, by value (the plan itself is a temporary).
Schedule moe_1f1b(const std::string& args) { return schedule(plan_of(args), "1f1b"); }

const char* kMixtral =
    "--num-layers 4 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 --group-query-attention "
    "--num-query-groups 8 --swiglu --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 "
    "--global-batch-size 8 --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel "
    "--bf16 --vocab-size 32000 --num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 4 "
    "--world-size 16 --disable-bias-linear --normalization RMSNorm --position-embedding-type rope";

const PlanMessage* find_what(const Schedule& s, int rank, const std::string& what) {
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.what == what) return &m;
  }
  return nullptr;
}

TEST(LayerComm, MoeAlltoallDispatcherMessagesOfAMixtralLikeLayout) {
  const Plan p = plan_of(std::string(kMixtral) + " --moe-token-dispatcher-type alltoall");
  const Schedule s = schedule(p, "1f1b");
  // Tokens per rank entering the MoE layer: T = s/cp/t x b = 4096/1/2 x 1 = 2048 (the SP shard); routed
  // rows T x topk = 4096. Dispatch all-to-all of the tokens: 4096 x h 4096 = 16777216 bf16 elements
  // (33554432 bytes) in the EP group {0,2,4,6} (same etp, edp, pp; ep 0..3 at stride 2). Per layer and
  // microbatch one forward and one backward call: 2 layers x m 2 = 4 each.
  const std::string fwd = "MoE dispatch all-to-all (tokens) forward (routing-dependent)";
  const PlanMessage* d = find_what(s, 0, fwd);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->op, "alltoall");
  EXPECT_EQ(d->group, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(d->elements, 16777216);
  EXPECT_EQ(d->bytes, 33554432);
  EXPECT_EQ(d->count, 4);
  EXPECT_TRUE(d->routing_dependent);
  EXPECT_EQ(count(s, 0, "alltoall", 16777216, "MoE dispatch all-to-all (tokens) backward (routing-dependent)"), 4);
  EXPECT_EQ(count(s, 0, "alltoall", 16777216, "MoE combine all-to-all forward (routing-dependent)"), 4);
  EXPECT_EQ(count(s, 0, "alltoall", 16777216, "MoE combine all-to-all backward (routing-dependent)"), 4);
  // The probs: T x topk = 4096 elements in the router's dtype (bf16: the input's dtype).
  EXPECT_EQ(count(s, 0, "alltoall", 4096, "MoE dispatch all-to-all (probs) forward (routing-dependent)"), 4);
  // Expert TP 2: gather of the received tokens, 2 x 4096 x 4096 = 33554432 elements in the expert-TP
  // group {0,1}; backward its reduce-scatter; the combine's reduce-scatter forward, all-gather backward.
  const PlanMessage* g = find_what(s, 0, "MoE expert-TP dispatch gather (tokens) forward (routing-dependent)");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->op, "all_gather");
  EXPECT_EQ(g->group, (std::vector<int>{0, 1}));
  EXPECT_EQ(g->elements, 33554432);
  EXPECT_EQ(
      count(s, 0, "reduce_scatter", 33554432, "MoE expert-TP dispatch gather (tokens) backward (routing-dependent)"),
      4);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 33554432, "MoE expert-TP combine reduce-scatter forward (routing-dependent)"),
            4);
  // The tokens-per-expert gather over expert TP x EP {0..7}: 2 x 4 x 8 experts = 64 int64, forward only.
  const PlanMessage* meta = find_what(s, 0, "MoE tokens-per-expert gather forward");
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->group, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(meta->elements, 64);
  EXPECT_EQ(meta->dtype, DType::kInt64);
  EXPECT_EQ(meta->count, 4);
  EXPECT_FALSE(meta->routing_dependent);
  EXPECT_EQ(find_what(s, 0, "MoE tokens-per-expert gather backward"), nullptr);
  // The second stage's rank 8: EP group {8,10,12,14}.
  EXPECT_EQ(find_what(s, 8, fwd)->group, (std::vector<int>{8, 10, 12, 14}));
  // Without shared experts an MoE layer keeps only the attention's SP collectives: all-gather 1 forward +
  // 2 backward, reduce-scatter 1 + 1, of [s, b, h] = 16777216: x 2 layers x 2 microbatches = 12 and 8
  // (a dense layer: 24 and 16).
  EXPECT_EQ(count(s, 0, "all_gather", 16777216, "TP per layer (SP)"), 12);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 16777216, "TP per layer (SP)"), 8);
  // A shared expert brings the MLP's TP collectives back.
  const Schedule shared = moe_1f1b(std::string(kMixtral) + " --moe-shared-expert-intermediate-size 4096");
  EXPECT_EQ(count(shared, 0, "all_gather", 16777216, "TP per layer (SP)"), 24);
}

TEST(LayerComm, MoeAllgatherDispatcherGathersOverExpertTpTimesEp) {
  const Schedule s = moe_1f1b(std::string(kMixtral) + " --moe-token-dispatcher-type allgather");
  // MoEAllGatherTokenDispatcher over expert TP x EP = 8 ranks {0..7}, T = 2048 per rank: routing map
  // 8 x 2048 x 8 experts = 131072 bool (forward only), probs 131072 bf16 (gather forward, reduce-scatter
  // backward), tokens 8 x 2048 x 4096 = 67108864 (the same), combine reduce-scatter 67108864 forward and
  // all-gather backward. 2 layers x 2 microbatches = 4 each.
  const PlanMessage* map = find_what(s, 0, "MoE allgather dispatch (routing map) forward");
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->group, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(map->elements, 131072);
  EXPECT_EQ(map->dtype, DType::kUint8);
  EXPECT_EQ(map->count, 4);
  EXPECT_EQ(count(s, 0, "all_gather", 131072, "MoE allgather dispatch (probs) forward"), 4);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 131072, "MoE allgather dispatch (probs) backward"), 4);
  EXPECT_EQ(count(s, 0, "all_gather", 67108864, "MoE allgather dispatch (tokens) forward"), 4);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 67108864, "MoE allgather dispatch (tokens) backward"), 4);
  EXPECT_EQ(count(s, 0, "reduce_scatter", 67108864, "MoE allgather combine forward"), 4);
  EXPECT_EQ(count(s, 0, "all_gather", 67108864, "MoE allgather combine backward"), 4);
  for (const auto& m : s.messages) {
    EXPECT_NE(m.op, "alltoall");
    EXPECT_FALSE(m.routing_dependent) << m.what;  // fixed sizes
  }
}

TEST(LayerComm, MoeLayerFreqAndRecomputeAndAuxLoss) {
  // --moe-layer-freq 2: layers 0 and 2 are MoE (i % 2 == 0); stage 0 holds layers 0 (MoE) and 1 (dense):
  // a2a 1 layer x 2 microbatches = 2; TP all-gathers: dense 6 + MoE 3 per microbatch = 18.
  const Schedule f = moe_1f1b(std::string(kMixtral) + " --moe-token-dispatcher-type alltoall --moe-layer-freq 2");
  EXPECT_EQ(count(f, 0, "alltoall", 16777216, "MoE combine all-to-all forward (routing-dependent)"), 2);
  EXPECT_EQ(count(f, 0, "all_gather", 16777216, "TP per layer (SP)"), 18);
  // The list form: [0,1,1,1]: stage 0 holds one MoE layer, stage 1 two.
  const Schedule l =
      moe_1f1b(std::string(kMixtral) + " --moe-token-dispatcher-type alltoall --moe-layer-freq [0,1,1,1]");
  EXPECT_EQ(count(l, 0, "alltoall", 16777216, "MoE combine all-to-all forward (routing-dependent)"), 2);
  EXPECT_EQ(count(l, 8, "alltoall", 16777216, "MoE combine all-to-all forward (routing-dependent)"), 4);
  // Full uniform recompute re-runs each layer's forward in backward: every forward MoE message again
  // (2 layers x 2 microbatches), none of the backward ones.
  const Schedule r = moe_1f1b(std::string(kMixtral) +
                              " --moe-token-dispatcher-type alltoall --recompute-granularity full "
                              "--recompute-method uniform --recompute-num-layers 1");
  EXPECT_EQ(
      count(r, 0, "alltoall", 16777216, "MoE dispatch all-to-all (tokens) forward (routing-dependent), recompute"), 4);
  EXPECT_EQ(count(r, 0, "all_gather", 64, "MoE tokens-per-expert gather forward, recompute"), 4);
  EXPECT_EQ(count(r, 0, "alltoall", 16777216, "MoE combine all-to-all backward (routing-dependent), recompute"), 0);
  // --moe-aux-loss-coeff > 0 (aux_loss): the router sums its 8 tokens-per-expert counts over TP x CP
  // ({0,1}) once per MoE layer and microbatch, forward only.
  const Schedule a = moe_1f1b(std::string(kMixtral) + " --moe-aux-loss-coeff 0.01");
  const PlanMessage* aux = find_what(a, 0, "MoE aux-loss tokens-per-expert sum forward");
  ASSERT_NE(aux, nullptr);
  EXPECT_EQ(aux->op, "all_reduce");
  EXPECT_EQ(aux->group, (std::vector<int>{0, 1}));
  EXPECT_EQ(aux->elements, 8);
  EXPECT_EQ(aux->count, 4);
}

TEST(LayerComm, MoeArgumentsFollowMegatronsRules) {
  auto error = [](const std::string& args) {
    try {
      (void)plan_of(args);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string base = kMixtral;
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_NE(error(replace("--num-experts 8", "")).find("num_experts must be non None"), std::string::npos);
  EXPECT_NE(error(replace("--num-experts 8", "--num-experts 6")).find("multiple of expert model parallel_size"),
            std::string::npos);
  // World 8: dense 2 x 2 x dp 2 is fine, the expert grid etp 2 x ep 4 x pp 2 = 16 is not.
  EXPECT_NE(error(replace("--world-size 16", "--world-size 8"))
                .find("world_size (8) is not divisible by expert_tensor_model_pipeline_parallel size (16"),
            std::string::npos);
  // Megatron-LM's parser has the choices allgather, alltoall, flex (alltoall_seq was removed).
  EXPECT_NE(error(base + " --moe-token-dispatcher-type alltoall_seq")
                .find("argument --moe-token-dispatcher-type: invalid choice: 'alltoall_seq' (choose from 'allgather', "
                      "'alltoall', 'flex')"),
            std::string::npos);
  EXPECT_NE(error(base + " --moe-token-dispatcher-type flex").find("flex: DeepEP"), std::string::npos);
  EXPECT_NE(error(base + " --moe-token-dispatcher-type ring").find("invalid choice: 'ring'"), std::string::npos);
  EXPECT_NE(error(replace("--sequence-parallel", "")).find("sequence parallelism"), std::string::npos);
  EXPECT_NE(error(base + " --moe-router-topk 9").find("above --num-experts 8"), std::string::npos);
  EXPECT_NE(error(base + " --moe-router-topk 1").find("--moe-router-pre-softmax when topk is 1"), std::string::npos);
  EXPECT_EQ(error(base + " --moe-router-topk 1 --moe-router-pre-softmax"), "(no error)");
  EXPECT_NE(error(base + " --rank-order tp-pp-dp").find("The size of (ep) is (4)"), std::string::npos);
  EXPECT_NE(error(base + " --moe-layer-freq [1,0]").find("Invalid length of moe_layer_pattern: 2, expected 4"),
            std::string::npos);
  EXPECT_NE(error(base + " --moe-layer-freq [1,2,0,0]").find("not 0 or 1"), std::string::npos);
  EXPECT_EQ(error(base + " --moe-layer-freq ([1]*3+[0])"), "(no error)");  // a Python expression, as Megatron eval()s
  EXPECT_NE(error(base + " --moe-layer-freq ([1]*3+[0])*2").find("Invalid length of moe_layer_pattern: 8, expected 4"),
            std::string::npos);
  EXPECT_NE(error(base + " --moe-layer-freq [1]*3+[x]").find("not a list expression"), std::string::npos);
  EXPECT_NE(error(base + " --moe-layer-freq 0").find("--moe-layer-freq 0: not a positive integer"), std::string::npos);
  EXPECT_NE(error(base + " --moe-layer-freq two").find("--moe-layer-freq two"), std::string::npos);
  EXPECT_NE(
      error(replace("--num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 4", "--moe-ffn-hidden-size 1024"))
          .find("moe_ffn_hidden_size is set but num_moe_experts is None"),
      std::string::npos);
  EXPECT_NE(error(base + " --num-distributed-optimizer-instances 2 --use-distributed-optimizer")
                .find("does not divide the expert data parallel size (1)"),
            std::string::npos);
}

}  // namespace
}  // namespace pipebench
