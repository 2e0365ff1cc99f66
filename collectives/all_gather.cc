// SPDX-License-Identifier: Apache-2.0
// all_gather: rank r's block of `count` elements lands at offset r*count on every rank.
#include "collectives/registry.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class AllGather final : public Op {
 public:
  AllGather() {
    traits_.supports_in_place = traits_.megatron_in_place = traits_.nccl_count_is_rank_part = traits_.in_plans = true;
  }
  std::string_view name() const override { return "all_gather"; }
  OpAliases aliases() const override { return {"ncclAllGather", "all_gather_perf", "AllGather", "allgather"}; }
  // size = the whole gathered output, count = per rank (nccl-tests AllGatherGetCollByteCount).
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    return split_sizing(requested, e, n, false);
  }
  // (n-1)/n applied to the total gathered bytes (nccl-tests doc/PERFORMANCE.md, AllGather).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams&) const override {
    return gathered_layout(s, rank, n, in_place, true);
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    const void* send = a.in_place ? own_block(b, local, a) : a.buffers.send(local);
    b.all_gather(local, send, a.buffers.recv(local), a.sizing.count, a.dtype);
  }
};

PB_REGISTER_OP(AllGather);

}  // namespace
}  // namespace pipebench
