// SPDX-License-Identifier: Apache-2.0
// all_reduce: every rank ends with the reduction of all inputs.
#include "collectives/registry.h"

namespace pipebench {
namespace {

class AllReduce final : public Op {
 public:
  AllReduce() {
    traits_.reduces = traits_.supports_in_place = traits_.megatron_in_place = traits_.nvswitch_reduces =
        traits_.in_plans = true;
  }
  std::string_view name() const override { return "all_reduce"; }
  OpAliases aliases() const override { return {"ncclAllReduce", "all_reduce_perf", "AllReduce", "allreduce"}; }
  Sizing sizing(std::size_t requested, std::size_t e, int, const OpParams&) const override {
    const std::size_t c = requested / e;
    return {c, c * e, c * e, c * e};
  }
  // 2(n-1)/n: each element crosses 2(n-1) of n links (nccl-tests doc/PERFORMANCE.md, AllReduce).
  double bus_bw_factor(int n) const override { return 2.0 * (n - 1) / n; }
  DataLayout layout(const Sizing& s, int rank, int, bool in_place, const OpParams&) const override {
    DataLayout d;
    d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count, rank, 0});
    d.checks.push_back({0, s.count, true, 0, 0});
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    const void* send = a.in_place ? recv : a.buffers.send(local);
    b.all_reduce(local, send, recv, a.sizing.count, a.dtype, a.redop);
  }
};

PB_REGISTER_OP(AllReduce);

}  // namespace
}  // namespace pipebench
