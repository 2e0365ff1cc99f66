// SPDX-License-Identifier: Apache-2.0
// What a pipeline pass pays on one GPU beyond its bytes and its FLOPs, measured the way Megatron-LM runs its
// P2P calls: one NCCL group of a send and a receive (torch.distributed.batch_isend_irecv), then the device
// synchronisation Megatron does after every batched call (p2p_communication.py, batch_p2p_sync). A GPU sends
// to itself, so one GPU measures it. Plain C++ header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/gemm_shape.h"
#include "core/stats.h"

namespace pipebench {

struct PassCostRequest {
  std::vector<GemmShape> gemms;  // one layer's forward GEMMs: the compute NCCL's kernels run beside
  DType dtype = DType::kBfloat16;
  std::int64_t p2p_bytes = 0;  // one P2P message of the plan (the activation of one microbatch)
  int device = 0;
  int reps = 50;  // samples of each term
};

struct PassCosts {
  // One batched call (send + receive of p2p_bytes): its kernel time on the GPU (events around it), and the
  // host's time from posting it to the return of the synchronisation after it.
  Stats call_device_us, call_host_us;
  // The GPU idle from the end of that call to the first kernel of the next pass, which the host can launch
  // only once the synchronisation returns: an event after the call, another before the next kernel.
  Stats sync_gap_us;
  // The layer's forward GEMMs alone, and with NCCL's send/receive kernels running beside them on another
  // stream of the same GPU (their SMs are the GEMMs' no more).
  Stats gemm_alone_us, gemm_beside_nccl_us;
  // NCCL's kernel time queued beside one pass: the calls posted times one call's kernel (call_device_us).
  double nccl_beside_us = 0;
  // CUDA_DEVICE_MAX_CONNECTIONS as this process saw it ("" when unset): Megatron sets 1, which puts every
  // stream's work in one hardware queue.
  std::string device_max_connections;
  std::string gpu;             // the GPU's name, as CUDA gives it
  std::int64_t p2p_bytes = 0;  // the message of each call (the request's)

  // The GEMMs and NCCL's kernels ran one after the other, not side by side: the pass grew by at least half the
  // NCCL kernel time queued beside it. With CUDA_DEVICE_MAX_CONNECTIONS=1 the GPU takes both streams' work
  // from one queue in the order it was posted, and a call that waits for the one before it holds back the GEMM
  // queued behind it; the growth is then NCCL's own time, not a share of SMs.
  [[nodiscard]] bool serialised() const;
  // --comm-sm-slowdown F: compute (1 + F) times slower while NCCL's kernels run beside it (medians; never
  // below 0; 0 when the two ran one after the other, see serialised()).
  [[nodiscard]] double comm_sm_slowdown() const;
  // The host's part of one call beyond its kernel (posting, synchronising), in us (medians; never below 0).
  [[nodiscard]] double call_host_beyond_device_us() const;
};

// Measures the terms on CUDA device `device`. Throws Error naming the failing call; UsageError where no GPU or
// no NCCL is there.
[[nodiscard]] PassCosts measure_pass_costs(const PassCostRequest& request);

}  // namespace pipebench
