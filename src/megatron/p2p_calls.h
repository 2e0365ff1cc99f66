// SPDX-License-Identifier: Apache-2.0
// The pipeline P2P calls one rank issues in one iteration, in Megatron's order (megatron.md §3a, §3b;
// megatron/core/pipeline_parallel/schedules.py). A call's ops go out together: one batch_isend_irecv
// (1F1B, interleaved with --no-overlap-p2p-communication) or isend/irecv posted together and left in
// flight (interleaved with overlap, p2p_communication.py _p2p_ops; with p = 2 one direction on the WORLD
// group so both directions of the one pair overlap). The plan's `batch` ids come from here.
#pragma once

#include <cstdint>
#include <functional>

#include "megatron/layout.h"
#include "megatron/model_args.h"

namespace pipebench {

struct P2PCallOp {
  bool send = true;
  bool grad = false;   // activation grad (backward) or activation (forward)
  std::int64_t k = 0;  // the virtual microbatch (forward or backward index) whose tensor it carries
  // The peer follows: send activation / recv grad -> next stage, recv activation / send grad -> prev.
  [[nodiscard]] bool to_next() const { return send != grad; }
};

// At most four ops (send/recv to prev/next), kept off the heap: a plan enumerates millions of calls.
struct P2PCall {
  const char* name = "";  // the Megatron call, e.g. "send_forward_recv_backward"
  // One batch_isend_irecv (1F1B; interleaved with --no-overlap-p2p-communication), or isend/irecv posted
  // together (interleaved with overlap, _p2p_ops); async: left in flight until a later wait.
  bool batched = true;
  bool async = false;
  P2PCallOp ops[4];
  int nops = 0;
};

// Calls pipeline rank r issues for schedule v (1: 1F1B), each with at least one op, in order.
void for_each_p2p_call(const MegatronArgs& a, const Layout& l, int v, int r,
                       const std::function<void(const P2PCall&)>& f);

}  // namespace pipebench
