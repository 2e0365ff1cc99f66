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

const Schedule& schedule(const Plan& p, const std::string& name, int v = 1) {
  for (const auto& s : p.schedules) {
    if (s.name == name && s.v == v) return s;
  }
  throw std::runtime_error("no schedule " + name);
}

// Sum of the counts of rank's messages with this op, elements (or -1) and `what`.
std::int64_t count(const Schedule& s, int rank, const std::string& op, std::int64_t elements, const std::string& what) {
  std::int64_t n = 0;
  for (const auto& m : s.messages) {
    if (m.rank == rank && m.op == op && (elements < 0 || m.elements == elements) && m.what == what) n += m.count;
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
  const Schedule& s = schedule(p, "1f1b");
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
  const Schedule& s = schedule(p, "1f1b");
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

}  // namespace
}  // namespace pipebench
