// SPDX-License-Identifier: Apache-2.0
// reduce_scatter: rank r ends with block r of the reduction of all inputs.
#include "collectives/registry.h"
#include "collectives/split_count.h"

namespace pipebench {
namespace {

class ReduceScatter final : public Op {
 public:
  ReduceScatter() {
    traits_.reduces = traits_.supports_in_place = traits_.megatron_in_place = traits_.nccl_count_is_rank_part =
        traits_.in_plans = true;
  }
  std::string_view name() const override { return "reduce_scatter"; }
  OpAliases aliases() const override {
    return {"ncclReduceScatter", "reduce_scatter_perf", "ReduceScatter", "reducescatter"};
  }
  // size = the whole input, count = per rank (nccl-tests ReduceScatterGetCollByteCount). The
  // receive buffer holds the whole input too, because in place the input lives there.
  Sizing sizing(std::size_t requested, std::size_t e, int n, const OpParams&) const override {
    return split_sizing(requested, e, n, true);
  }
  // (n-1)/n applied to the whole input (nccl-tests doc/PERFORMANCE.md, ReduceScatter).
  double bus_bw_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  DataLayout layout(const Sizing& s, int rank, int n, bool in_place, const OpParams&) const override {
    DataLayout d;
    const std::size_t whole = s.count * static_cast<std::size_t>(n);
    const std::size_t mine = static_cast<std::size_t>(rank) * s.count;
    d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, 0, whole, rank, 0});
    d.checks.push_back({in_place ? mine : 0, s.count, true, 0, mine});
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    const void* send = a.in_place ? recv : a.buffers.send(local);
    b.reduce_scatter(local, send, a.in_place ? own_block(b, local, a) : recv, a.sizing.count, a.dtype, a.redop);
  }
};

PB_REGISTER_OP(ReduceScatter);

}  // namespace
}  // namespace pipebench
