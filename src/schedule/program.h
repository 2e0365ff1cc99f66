// SPDX-License-Identifier: Apache-2.0
// A schedule generator's output: what one pipeline rank does in one iteration, in order, as compute passes
// and the P2P calls Megatron issues (megatron.md §3; schedules.py, p2p_communication.py). It says nothing
// about time or bytes: the simulator (sim/schedules.h), the plan's message list (megatron/p2p_calls.h) and
// the replay read the same steps and add those.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace pipebench {

// The compute pass of a step: forward, backward, or the weight gradient alone. Schedules that do not split
// the backward (ScheduleGenerator::splits_backward) write kBackward for activation and weight gradients
// together; the zero-bubble schedules (Qi et al., ICLR 2024 §2) write kBackward for the activation
// gradient (B) and kWeight for the weight gradient (W) of the same microbatch and chunk, later.
enum class Pass : std::uint8_t { kForward, kBackward, kWeight };
[[nodiscard]] inline char pass_letter(Pass pass) { return "FBW"[static_cast<int>(pass)]; }  // in labels

// Which rank runs which virtual stage, a property of the generator (ScheduleGenerator::placement).
// kLoop: chunk c of rank r is stage c p + r, so the forward wraps from rank p-1 to rank 0 between chunks
// (Megatron's interleaving, megatron.md §3b). kV (two chunks): rank r holds stage r on chunk 0 and stage
// 2p-1-r on chunk 1, the forward runs down the ranks and back up, the first and the last stage are on rank
// 0 and the hand-off between the chunks stays on rank p-1 (Qi et al., ICLR 2024, §6 ZB-V).
enum class StagePlacement : std::uint8_t { kLoop, kV };

// The virtual stage of chunk c on rank r of p.
[[nodiscard]] inline int placed_stage(StagePlacement placement, int p, int r, int c) {
  return placement == StagePlacement::kV && c == 1 ? 2 * p - 1 - r : c * p + r;
}

// One op of a call. k is the virtual microbatch: forward k is ScheduleShape::table[k]; backward k (and weight
// k) is the same microbatch on the mirrored chunk (v-1-c), the order Megatron's backward runs in (§3b).
struct CallOp {
  bool send = true;
  bool grad = false;  // activation grad (backward) or activation (forward)
  std::int64_t k = 0;
  // The peer follows: send activation / recv grad -> next stage, recv activation / send grad -> prev
  // (ScheduleShape::peer: the rank of that stage).
  [[nodiscard]] bool to_next() const { return send != grad; }
};

// One Megatron call, at most four ops (send/recv to prev/next), kept off the heap: a plan of p 64, v 8,
// m 1024 walks millions of them.
struct Call {
  const char* name = "";  // the Megatron call, e.g. "send_forward_recv_backward"
  // One batch_isend_irecv (1F1B; interleaved with --no-overlap-p2p-communication), or isend/irecv posted
  // together (interleaved with overlap, _p2p_ops).
  bool batched = true;
  // Left in flight until a later wait names its handle; otherwise the rank waits for every op.
  bool async = false;
  int handle = -1;  // async: numbered from 0 per rank and iteration
  CallOp ops[4];
  int nops = 0;
};

// The schedule's shape on one pipeline: what the generators need to know. Costs only where a generator orders
// its passes by their times (pass_ns).
struct ScheduleShape {
  int p = 1;                // pipeline ranks
  int v = 1;                // model chunks per rank
  std::int64_t m = 1;       // microbatches
  bool overlap_p2p = true;  // interleaved: async isend/irecv (Megatron's default) or batched calls
  StagePlacement placement = StagePlacement::kLoop;  // the generator's
  std::vector<std::int64_t> warmup;                  // per pipeline rank: forward steps before the first backward
  std::vector<std::pair<std::int64_t, int>> table;   // forward virtual microbatch k -> (microbatch, chunk)
  // One chunk per rank: F, B and W of one microbatch on each pipeline rank in ns, where the build knows them
  // (sim/schedule_build.cc, for the simulator and the replay alike); empty elsewhere (plan, trace), where a
  // generator that plans by time (zb_2p.cc) takes equal passes.
  std::vector<std::array<std::int64_t, 3>> pass_ns;
  // The share of a microbatch's activations still held between its B and its W (Qi et al., ICLR 2024, §3.1:
  // M_W / M_B, 32bsh against 34bsh + 5as^2b); 1 where the build does not know the model.
  double w_held_share = 1;

  [[nodiscard]] std::int64_t steps() const { return static_cast<std::int64_t>(table.size()); }  // m v
  [[nodiscard]] std::int64_t microbatch(std::int64_t k) const { return table[static_cast<std::size_t>(k)].first; }
  [[nodiscard]] int chunk(Pass pass, std::int64_t k) const {
    const int c = table[static_cast<std::size_t>(k)].second;
    return pass == Pass::kForward ? c : v - 1 - c;
  }
  [[nodiscard]] int chunk(const CallOp& op) const { return chunk(op.grad ? Pass::kBackward : Pass::kForward, op.k); }
  [[nodiscard]] int stage(int r, int c) const { return placed_stage(placement, p, r, c); }
  [[nodiscard]] int rank_of(int stage) const {
    return placement == StagePlacement::kV && stage >= p ? 2 * p - 1 - stage : stage % p;
  }
  // The pipeline rank an op of rank r goes to or comes from: the rank of the stage after its own (activation
  // sent, grad received) or before it.
  [[nodiscard]] int peer(int r, const CallOp& op) const {
    const int s = stage(r, chunk(op));
    return rank_of(op.to_next() ? s + 1 : s - 1);
  }
  // The key a send and its receive share: (microbatch, receiving stage, grad), the receiving stage the next
  // for an activation sent, the one before for a grad. Dense in [0, 2 m p v), so the simulator can match
  // transfers through an array.
  [[nodiscard]] std::int64_t transfer_tag(int r, const CallOp& op) const {
    const int s = stage(r, chunk(op));
    const int to_stage = !op.send ? s : op.grad ? s - 1 : s + 1;
    return (microbatch(op.k) * p * v + to_stage) * 2 + (op.grad ? 1 : 0);
  }
  // The table inverted: (microbatch x v + chunk) -> the forward virtual microbatch k of that entry (-1: none).
  [[nodiscard]] std::vector<std::int64_t> forward_step_of() const;
};

// The table of a schedule with one chunk per rank: microbatch k on chunk 0, in order.
[[nodiscard]] std::vector<std::pair<std::int64_t, int>> one_chunk_table(std::int64_t m);

// Receives a rank's steps in order.
class ProgramSink {
 public:
  virtual ~ProgramSink() = default;
  virtual void compute(Pass pass, std::int64_t k) = 0;
  // Every call with ops, and async calls without ops too (a later wait names their handle).
  virtual void call(const Call& c) = 0;
  virtual void wait(int handle) = 0;
};

}  // namespace pipebench
