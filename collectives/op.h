// SPDX-License-Identifier: Apache-2.0
// Op: one collective or point-to-point pattern. It knows its sizes, its bus-bandwidth factor, how to
// issue itself on a Backend and where its check data lives; the harness does everything else once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend.h"
#include "core/data_layout.h"
#include "core/dtype.h"
#include "core/rank_pair.h"

namespace pipebench {

// Settings that only some ops read.
struct OpParams {
  int root = 0;                 // broadcast
  std::vector<RankPair> pairs;  // pair
  bool bidirectional = false;   // pair: every listed pair also sends dst -> src
};

// The nccl-tests size convention (getCollByteCount): `count` is the count passed to the call,
// `size_bytes` is max(send, recv) bytes, the "size" column and the numerator of algbw.
struct Sizing {
  std::size_t count = 0;
  std::size_t size_bytes = 0;
  std::size_t send_bytes = 0;  // per rank, buffer needs
  std::size_t recv_bytes = 0;
};

// Everything an op needs to issue one call for one local rank.
struct CallArgs {
  const Buffers& buffers;
  const Sizing& sizing;
  DType dtype;
  RedOp redop;
  bool in_place;
  const OpParams& params;
};

// The names other tools give an op; OpRegistry::resolve maps each back to it. "" where a tool has none.
struct OpAliases {
  std::string_view nccl_api;    // NCCL's call, also its NVTX range name: "ncclAllReduce"
  std::string_view nccl_tests;  // the nccl-tests binary (nccl-tests src/Makefile): "all_reduce_perf"
  // The op's token in NCCL's kernel names (ncclDevKernel_AllReduce_Sum_f32_RING_LL, nsys and Kineto):
  // "AllReduce". NOTE: ops NCCL runs as grouped send/recv share the SendRecv kernel and leave it "".
  std::string_view kernel;
  // PyTorch c10d's name lower-cased without '_', the start of all its variants ("allreduce" for
  // allreduce_coalesced, "allgather" for _allgather_base and all_gather_into_tensor).
  std::string_view c10d;
};

// Which of OpAliases a query means.
enum class OpAlias { kNcclApi, kNcclTests, kKernel, kC10d };
[[nodiscard]] constexpr std::string_view alias_of(const OpAliases& a, OpAlias kind) {
  switch (kind) {
    case OpAlias::kNcclApi:
      return a.nccl_api;
    case OpAlias::kNcclTests:
      return a.nccl_tests;
    case OpAlias::kKernel:
      return a.kernel;
    case OpAlias::kC10d:
      break;
  }
  return a.c10d;
}

// What the rest of pipebench asks of an op, as data: each op sets the flags that hold for it in its
// constructor.
struct OpTraits {
  bool reduces = false;
  bool supports_in_place = false;
  bool has_root = false;
  // A point-to-point transfer between listed ranks (a send and its recv), not a collective of the group.
  // Exactly one registered op is: it takes its transfers from OpParams::pairs (--pairs; `--op all` leaves
  // it out unless --pairs is given, and --pairs/--bidir apply only to it), its records carry the pairs,
  // and it times a plan's send/recv messages. NOTE: sendrecv is a ring shift over the whole group, so no.
  bool is_transfer = false;
  // Megatron-LM issues it in place, one buffer for input and output (megatron.md §4-§6): DDP's
  // all_reduce(bucket.grad_data) and reduce_scatter/all_gather on its buffers, the embedding, found_inf
  // and cross-entropy all-reduces, get_batch's broadcasts, TP's collectives into their outputs. MoE's
  // all-to-all and CP's ring exchange move between distinct tensors. bench --plan times, the cost model
  // prefers and replay issues this placement; on a 1-rank group an in-place collective moves no data.
  bool megatron_in_place = false;
  // nccl-tests times an in-place placement of this op that it never checks (SendRecvInitData and
  // AlltoAllInitData set reportErrors = 0 for in_place): input and output on one buffer, #wrong "N/A", and
  // its busbw in the "Avg bus bandwidth" average. Started as an nccl-tests binary pipebench times it too, so
  // rows and footer match; bench itself leaves such a placement out (N/A), as it measures nothing real.
  bool nccl_tests_unchecked_in_place = false;
  // nccl-tests runs this op once per -o operation although it reduces nothing (SendRecvRunTest loops
  // run_ops), so its rows name the operation ("sum" by default), not "none". Started as an nccl-tests
  // binary pipebench does the same; bench's records say "none".
  bool nccl_tests_names_redop = false;
  // NCCL's count (and the size in its NVTX payload) is one rank's part of the tensor a plan names,
  // not the whole: ncclAllGather's sendcount, ncclReduceScatter's recvcount (nccl.h).
  bool nccl_count_is_rank_part = false;
  // NVSwitch reduces it in the fabric (NVLink SHARP, NCCL's NVLS), so its bus bandwidth can pass the
  // link's: ~480 of 450 GB/s on H100 (NVIDIA/nccl-tests#212; topology/link_band.h takes this flag).
  bool nvswitch_reduces = false;
  // A collective Megatron issues, so a plan may name it: bench --plan times it and replay issues it, both
  // through issue() on the message's group (collectives/plan_call.h). False: no plan message has it.
  bool in_plans = false;
};

class Op {
 public:
  virtual ~Op() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] const OpTraits& traits() const { return traits_; }
  [[nodiscard]] virtual OpAliases aliases() const = 0;
  // REQUIRES: nranks >= 1. elem_bytes > 0.
  [[nodiscard]] virtual Sizing sizing(std::size_t requested_bytes, std::size_t elem_bytes, int nranks,
                                      const OpParams& params) const = 0;
  [[nodiscard]] virtual double bus_bw_factor(int nranks) const = 0;
  [[nodiscard]] virtual DataLayout layout(const Sizing& s, int rank, int nranks, bool in_place,
                                          const OpParams& params) const = 0;
  virtual void issue(Backend& backend, int local, const CallArgs& args) const = 0;
  // Rejects params this op cannot run with (e.g. a pair naming a rank out of range).
  virtual void validate(int /*nranks*/, const OpParams& /*params*/) const {}
  // Params for one plan point on a group of two ranks: forward = group[0] sends to group[1], backward =
  // the reverse. Ops that do not time plan transfers run with the defaults.
  [[nodiscard]] virtual OpParams transfer_params(bool /*forward*/, bool /*backward*/) const { return {}; }
  // How a plan point run with these params names the op ("send", "sendrecv both"); default its name.
  [[nodiscard]] virtual std::string plan_label(const OpParams& /*params*/) const { return std::string(name()); }

 protected:
  OpTraits traits_;
};

}  // namespace pipebench
