// SPDX-License-Identifier: Apache-2.0
// The plan's batch ids: which pipeline messages of a rank Megatron issues together (schedules.py,
// p2p_communication.py), against counts worked out by hand from the schedule loops (megatron.md §3a/§3b).
#include "megatron/p2p_calls.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "megatron/plan.h"

namespace pipebench {
namespace {

Plan plan_of(const std::string& extra) {
  std::istringstream in(
      "--num-layers 32 --hidden-size 64 --ffn-hidden-size 256 --num-attention-heads 4 --seq-length 32 "
      "--max-position-embeddings 32 --micro-batch-size 1 --vocab-size 1000 --fp16 " +
      extra);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return make_plan(parse_megatron_args(words), 0);
}

const Schedule& schedule(const Plan& p, int v) {
  for (const auto& s : p.schedules) {
    if (s.id.v == v) return s;
  }
  throw std::runtime_error("no schedule with v " + std::to_string(v));
}

// One batch of a rank: the call, how often it is issued, and its messages as "op peer what phase".
struct Batch {
  std::string call;
  std::int64_t count = -1;
  std::vector<std::string> messages;
};

std::vector<Batch> batches(const Schedule& s, int rank) {
  std::map<int, Batch> by_id;
  for (const auto& m : s.messages) {
    if (m.rank != rank || (m.op != "send" && m.op != "recv")) continue;
    EXPECT_GE(m.batch, 0) << "message " << m.id << " has no batch";
    Batch& b = by_id[m.batch];
    if (b.count >= 0) {
      EXPECT_EQ(b.count, m.count) << "batch " << m.batch << ": its messages' counts differ";
      EXPECT_EQ(b.call, m.call);
    }
    b.call = m.call;
    b.count = m.count;
    b.messages.push_back(std::string(m.op.name()) + " " + std::to_string(m.peer) + " " + m.what + " " +
                         phase_name(m.phase));
  }
  std::vector<Batch> out;
  for (auto& [id, b] : by_id) {
    EXPECT_EQ(id, static_cast<int>(out.size())) << "batch ids of a rank are 0, 1, 2, ...";
    std::sort(b.messages.begin(), b.messages.end());
    out.push_back(b);
  }
  return out;
}

void expect_batch(const std::vector<Batch>& got, std::size_t i, const std::string& call, std::int64_t count,
                  const std::vector<std::string>& messages) {
  ASSERT_LT(i, got.size());
  EXPECT_EQ(got[i].call, call) << "batch " << i;
  EXPECT_EQ(got[i].count, count) << "batch " << i;
  EXPECT_EQ(got[i].messages, messages) << "batch " << i;
}

TEST(PlanBatches, OneFOneBRankOneOfFourWithEightMicrobatches) {
  // pp 4, m 8, rank 1: W = min(p - r - 1, m) = 2, R = 6. Warm-up: 2 x recv_forward, 2 x send_forward;
  // then one recv_forward (microbatch 2, steady); steady i = 0..5: send_forward_recv_backward (6, one
  // batch_isend_irecv of the activation to rank 2 and the grad from rank 2), send_backward_recv_forward
  // for i = 0..4 (5) and send_backward for i = 5 (1); cool-down 2 x recv_backward, 2 x send_backward.
  // Totals per direction: 2 + 1 + 5 = 8 activations in, 2 + 6 = 8 out, 6 + 2 grads in, 5 + 1 + 2 out.
  const auto got = batches(schedule(plan_of("--pipeline-model-parallel-size 4 --global-batch-size 8"), 1), 1);
  ASSERT_EQ(got.size(), 8u);
  expect_batch(got, 0, "recv_forward", 2, {"recv 0 activation warm-up"});
  expect_batch(got, 1, "send_forward", 2, {"send 2 activation warm-up"});
  expect_batch(got, 2, "recv_forward", 1, {"recv 0 activation steady"});
  expect_batch(got, 3, "send_forward_recv_backward", 6, {"recv 2 activation grad steady", "send 2 activation steady"});
  expect_batch(got, 4, "send_backward_recv_forward", 5, {"recv 0 activation steady", "send 0 activation grad steady"});
  expect_batch(got, 5, "send_backward", 1, {"send 0 activation grad steady"});
  expect_batch(got, 6, "recv_backward", 2, {"recv 2 activation grad cool-down"});
  expect_batch(got, 7, "send_backward", 2, {"send 0 activation grad cool-down"});
}

TEST(PlanBatches, InterleavedWithOverlapPostsForwardAndBackwardPairs) {
  // pp 4, m 8, v 2 (4 layers per virtual stage), N = p = 4: chunk of forward k = (k / 4) % 2; T = 16.
  // Rank 1: W = 2 (p - r - 1) + (v - 1) N = 8, R = 8. The recv_forward of k = 0; warm-up k = 0..7:
  // send_forward_recv_forward (send k, receive k + 1), at k = 7 also the async pre-post of grad 0;
  // steady j = 0..7: async forward call (send 8 + j, receive 9 + j; j = 7 has no receive, k + 1 = T) and
  // async backward call (send grad j, receive grad j + 1); cool-down k = 8..15: send grad k, receive
  // grad k + 1 (none at k = 15). Totals: 1 + 8 + 7 = 16 activations in, 8 + 7 + 1 out, 1 + 8 + 7 grads in,
  // 8 + 7 + 1 out.
  const Plan p =
      plan_of("--pipeline-model-parallel-size 4 --global-batch-size 8 --num-layers-per-virtual-pipeline-stage 4");
  const auto got = batches(schedule(p, 2), 1);
  ASSERT_EQ(got.size(), 8u);
  expect_batch(got, 0, "recv_forward", 1, {"recv 0 activation warm-up"});
  expect_batch(got, 1, "send_forward_recv_forward", 8, {"recv 0 activation warm-up", "send 2 activation warm-up"});
  expect_batch(got, 2, "send_backward_recv_backward", 1, {"recv 2 activation grad warm-up"});
  expect_batch(got, 3, "send_forward_recv_forward", 7, {"recv 0 activation steady", "send 2 activation steady"});
  expect_batch(got, 4, "send_backward_recv_backward", 8,
               {"recv 2 activation grad steady", "send 0 activation grad steady"});
  expect_batch(got, 5, "send_forward_recv_forward", 1, {"send 2 activation steady"});
  expect_batch(got, 6, "send_backward_recv_backward", 7,
               {"recv 2 activation grad cool-down", "send 0 activation grad cool-down"});
  expect_batch(got, 7, "send_backward_recv_backward", 1, {"send 0 activation grad cool-down"});
}

TEST(PlanBatches, InterleavedWithoutOverlapIssuesOneFourOpBatchPerSteadyStep) {
  // As above with --no-overlap-p2p-communication: the last warm-up step (k = 7) adds the receive of grad
  // 0 to its call (send_forward_backward_recv_forward_backward), and each steady step j = 0..7 is one
  // batch of up to four: send activation 8 + j to 2, send grad j to 0, receive activation 9 + j from 0
  // (j < 7), receive grad j + 1 from 2. So 7 four-op batches and one three-op one (j = 7).
  const Plan p = plan_of(
      "--pipeline-model-parallel-size 4 --global-batch-size 8 --num-layers-per-virtual-pipeline-stage 4 "
      "--no-overlap-p2p-communication");
  const auto got = batches(schedule(p, 2), 1);
  ASSERT_EQ(got.size(), 7u);
  expect_batch(got, 1, "send_forward_recv_forward", 7, {"recv 0 activation warm-up", "send 2 activation warm-up"});
  expect_batch(got, 2, "send_forward_backward_recv_forward_backward", 1,
               {"recv 0 activation warm-up", "recv 2 activation grad warm-up", "send 2 activation warm-up"});
  expect_batch(got, 3, "send_forward_backward_recv_forward_backward", 7,
               {"recv 0 activation steady", "recv 2 activation grad steady", "send 0 activation grad steady",
                "send 2 activation steady"});
  expect_batch(got, 4, "send_forward_backward_recv_forward_backward", 1,
               {"recv 2 activation grad steady", "send 0 activation grad steady", "send 2 activation steady"});
}

TEST(PlanBatches, TwoStagesSendAndReceiveOnTheOnePairAtOnce) {
  // pp 2, m 4, v 2 (8 layers per virtual stage), N = 2: chunks of k = 0..7 are 0 0 1 1 0 0 1 1; T = 8.
  // Rank 0 (prev = next = rank 1; Megatron puts one direction on the WORLD group so both overlap):
  // W = 2 (2 - 0 - 1) + 1 x 2 = 4, R = 4. It never receives a chunk-0 input nor sends a chunk-0 grad.
  // Warm-up k = 0..3 sends activation k and receives k + 1 when chunk(k + 1) = 1 (k + 1 = 2, 3):
  // {send} at k = 0, 3, {send, recv} at k = 1, 2; the async pre-post of grad 0. Steady j = 0..3
  // (k = 4 + j): forward {send} at k = 4, 7, {send, recv} at k = 5, 6; backward sends grad j when
  // chunk(j) = 0 (j = 0, 1) and receives grad j + 1: {send, recv} x 2, {recv} x 2. Cool-down k = 4..7:
  // {send, recv} at k = 4, 5, {recv} at k = 6, nothing at k = 7.
  // Totals: 8 activations out, 4 in (chunk 1), 8 grads in, 4 out (chunk 1's backward).
  const Plan p =
      plan_of("--pipeline-model-parallel-size 2 --global-batch-size 4 --num-layers-per-virtual-pipeline-stage 8");
  const auto got = batches(schedule(p, 2), 0);
  ASSERT_EQ(got.size(), 9u);
  expect_batch(got, 0, "send_forward_recv_forward", 2, {"send 1 activation warm-up"});
  expect_batch(got, 1, "send_forward_recv_forward", 2, {"recv 1 activation warm-up", "send 1 activation warm-up"});
  expect_batch(got, 2, "send_backward_recv_backward", 1, {"recv 1 activation grad warm-up"});
  expect_batch(got, 3, "send_forward_recv_forward", 2, {"send 1 activation steady"});
  expect_batch(got, 4, "send_backward_recv_backward", 2,
               {"recv 1 activation grad steady", "send 1 activation grad steady"});
  expect_batch(got, 5, "send_forward_recv_forward", 2, {"recv 1 activation steady", "send 1 activation steady"});
  expect_batch(got, 6, "send_backward_recv_backward", 2, {"recv 1 activation grad steady"});
  expect_batch(got, 7, "send_backward_recv_backward", 2,
               {"recv 1 activation grad cool-down", "send 1 activation grad cool-down"});
  expect_batch(got, 8, "send_backward_recv_backward", 1, {"recv 1 activation grad cool-down"});
  // Batch 5 is both directions of the link {0, 1} at once: one group, one peer.
  for (const auto& m : schedule(p, 2).messages) {
    if (m.rank == 0 && m.batch == 5) {
      EXPECT_EQ(m.group, (std::vector<int>{0, 1}));
    }
  }
}

TEST(PlanBatches, CallsCarryTheirIssueMode) {
  // 1F1B and interleaved without overlap: one batch_isend_irecv per call; interleaved with overlap:
  // isend/irecv posted together, the steady ones async.
  const Plan p =
      plan_of("--pipeline-model-parallel-size 4 --global-batch-size 8 --num-layers-per-virtual-pipeline-stage 4");
  int batched = 0, async = 0, calls = 0;
  const ScheduleId interleaved{"interleaved", 2}, one_f_one_b_id{"1f1b", 1};
  for_each_p2p_call(megatron_shape(p.args, p.layout, interleaved), interleaved, 1, [&](const Call& c) {
    ++calls;
    batched += c.batched ? 1 : 0;
    async += c.async ? 1 : 0;
  });
  // Rank 1 (see above): 1 + 8 + 1 + 16 + 8 = 34 calls, the pre-post and the 16 steady ones async.
  EXPECT_EQ(calls, 34);
  EXPECT_EQ(batched, 0);
  EXPECT_EQ(async, 17);
  int one_f_one_b = 0;
  for_each_p2p_call(megatron_shape(p.args, p.layout, one_f_one_b_id), one_f_one_b_id, 1,
                    [&](const Call& c) { one_f_one_b += c.batched && !c.async ? 1 : 0; });
  EXPECT_EQ(one_f_one_b, 2 + 2 + 1 + 6 + 6 + 2 + 2);  // every 1F1B call of rank 1 (first test), batched
}

}  // namespace
}  // namespace pipebench
