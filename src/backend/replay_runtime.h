// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime: what `pipebench replay` needs from a transport to execute a schedule's task list for
// real: timed compute, P2P calls that block or run asynchronously until a later wait, collectives on
// sub-groups, and the start and end of every task on this rank's clock. MPI: host sleep, Isend/Irecv,
// steady clock. NCCL: a spin kernel on a compute stream, P2P on a communication stream with events,
// CUDA-event times. Each process drives exactly one rank.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/dtype.h"
#include "core/gemm_shape.h"
#include "launch/world.h"

namespace pipebench {

// One op of a P2P call; peer is a global rank. tag identifies the transfer within an iteration.
struct ReplayP2P {
  bool send = true;
  int peer = 0;
  std::int64_t bytes = 0;
  std::int64_t tag = 0;
};

// kSendRecv: a ring shift in the group (each member sends `bytes` to the next and receives from the
// previous: context parallelism's KV ring); kAllToAll: each member's `bytes` split evenly over the members.
enum class ReplayCollOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kSendRecv, kAllToAll };
inline constexpr std::size_t kReplayCollOps = 6;

// One collective of a replay as the plan issues it: the op, the message's element type and reduction,
// in place or not (Op::megatron_in_place: Megatron's grad buffers, embedding and found_inf
// all-reduces and get_batch's broadcasts are in place), its whole size in bytes (all_gather: the
// gathered result, reduce_scatter: the input), repeated count times. bench --plan times the same call.
struct ReplayCollCall {
  ReplayCollOp op = ReplayCollOp::kAllReduce;
  DType dtype = DType::kFloat;
  RedOp redop = RedOp::kSum;
  bool in_place = false;
  std::int64_t bytes = 0;
  int count = 1;
};

// Nanoseconds on this rank's clock, relative to the start of the iteration.
struct ReplaySpan {
  std::int64_t start_ns = 0, end_ns = 0;
};

struct ReplayComputeOptions {
  std::string kind = "spin";  // spin | gemm (NCCL); the MPI runtime always sleeps on the host
  int compute_sms = 0;        // spin: SMs to use (0: all)
  // gemm: one layer's forward GEMMs on this rank, their type, and the planned forward time of one
  // layer (a step runs its planned time / this many passes, backend/replay_gemm.h).
  std::vector<GemmShape> layer_gemms;
  DType gemm_dtype = DType::kHalf;
  std::int64_t layer_fwd_ns = 0;
};

class ReplayRuntime {
 public:
  virtual ~ReplayRuntime() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual int rank() const = 0;  // global rank of this process

  // Collective over every process: a group of global ranks (sorted, unique) for later collectives.
  // Returns its id, or -1 where this rank is not a member.
  [[nodiscard]] virtual int add_group(const std::vector<int>& members) = 0;

  // Barrier over every process, then this rank's clock origin for the iteration's spans. tasks: how
  // many tasks the iteration has (span slots).
  virtual void begin_iteration(std::size_t tasks) = 0;
  // Compute of duration_ns, in order after everything before it on this rank.
  virtual void compute(std::size_t task, std::int64_t duration_ns) = 0;
  // One batched call of n P2P ops. blocking: returns when all are done (Megatron's batched,
  // synchronised calls). Else the call runs in the background until wait(handle).
  virtual void p2p(std::size_t task, const ReplayP2P* ops, std::size_t n, bool blocking, int handle) = 0;
  virtual void wait(std::size_t task, int handle) = 0;
  // The call on group `group`, repeated call.count times; blocks.
  virtual void collective(std::size_t task, int group, const ReplayCollCall& call) = 0;
  // Waits for everything, returns each task's span (async P2P: post to completion; wait: the time
  // blocked) and the iteration's duration on this rank.
  virtual std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) = 0;
};

// REQUIRES: one rank per process; world outlives the runtime. Collective.
[[nodiscard]] std::unique_ptr<ReplayRuntime> make_mpi_replay_runtime(const World& world);
// REQUIRES: one GPU per process (local rank -> device). Collective.
[[nodiscard]] std::unique_ptr<ReplayRuntime> make_nccl_replay_runtime(const World& world,
                                                                      const ReplayComputeOptions& compute);

}  // namespace pipebench
