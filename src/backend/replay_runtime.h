// SPDX-License-Identifier: Apache-2.0
// ReplayRuntime: what `pipebench replay` needs around the calls it issues to execute a schedule's task
// list for real: timed compute, P2P calls that block or run asynchronously until a later wait, and the
// start and end of every task on this rank's clock. The calls themselves are issued on a Backend, by the
// op that bench times them with. MPI: host sleep (asynchronous P2P polled through it), steady clock.
// NCCL: a spin kernel (or GEMMs) on a compute stream ordered against the backends' streams by events,
// CUDA-event times. Each process drives exactly one rank.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/dtype.h"
#include "core/gemm_shape.h"
#include "launch/world.h"

namespace pipebench {

// Issues one call's sends and receives, or one collective, on the communicator it is given: the op's
// Op::issue, as bench times it (the replay layer builds it; this layer knows no op).
using ReplayIssue = std::function<void()>;

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

  // Buffers for the calls about to be issued: at least these sizes, allocated by the backend the runtime
  // was made with (as bench allocates), kept at the largest asked. A set grown out of while
  // asynchronous P2P may still use it is kept until nothing is pending.
  [[nodiscard]] virtual const Buffers& buffers(std::size_t send_bytes, std::size_t recv_bytes) = 0;

  // Barrier over every process, then this rank's clock origin for the iteration's spans. tasks: how
  // many tasks the iteration has (span slots).
  virtual void begin_iteration(std::size_t tasks) = 0;
  // The same without the barrier: the rank starts its next iteration as soon as it has ended the last one (the
  // Zero Bubble paper's optimizer post-validation: no step that every rank waits for).
  virtual void continue_iteration(std::size_t tasks) = 0;
  // Compute of duration_ns, in order after everything before it on this rank.
  virtual void compute(std::size_t task, std::int64_t duration_ns) = 0;
  // One batched P2P call: issue() between comm.group_begin() and the group's end. blocking: returns when
  // every op is done (Megatron's batched, synchronised calls). Else the call runs in the background
  // until wait(handle).
  virtual void p2p(std::size_t task, Backend& comm, const ReplayIssue& issue, bool blocking, int handle) = 0;
  virtual void wait(std::size_t task, int handle) = 0;
  // A collective on comm (its group's communicator): issue() issues one call, in a group of its own as
  // bench's, `count` times; blocks until all are done.
  virtual void collective(std::size_t task, Backend& comm, const ReplayIssue& issue, int count) = 0;
  // Waits for everything, returns each task's span (async P2P: post to completion; wait: the time
  // blocked) and the iteration's duration on this rank.
  virtual std::vector<ReplaySpan> end_iteration(std::int64_t* iteration_ns) = 0;
  // After end_iteration: the iteration's clock origin since that of the last iteration begun with the barrier (0
  // for that one), which puts the ends of iterations run back to back on one timeline per rank.
  [[nodiscard]] virtual std::int64_t origin_since_barrier_ns() const = 0;
};

// REQUIRES: one rank per process; world and backend (make_backend's MPI backend of the world) outlive
// the runtime.
[[nodiscard]] std::unique_ptr<ReplayRuntime> make_mpi_replay_runtime(const World& world, Backend& backend);
// REQUIRES: backend is make_backend's NCCL backend of the world with one GPU per process (the device the
// compute runs on); world and backend outlive the runtime.
[[nodiscard]] std::unique_ptr<ReplayRuntime> make_nccl_replay_runtime(const World& world, Backend& backend,
                                                                      const ReplayComputeOptions& compute);

}  // namespace pipebench
