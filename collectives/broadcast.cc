// SPDX-License-Identifier: Apache-2.0
// broadcast: the root's buffer reaches every rank.
#include "collectives/registry.h"
#include "collectives/root_check.h"

namespace pipebench {
namespace {

class Broadcast final : public Op {
 public:
  Broadcast() { traits_.supports_in_place = traits_.has_root = traits_.megatron_in_place = traits_.in_plans = true; }
  std::string_view name() const override { return "broadcast"; }
  OpAliases aliases() const override { return {"ncclBroadcast", "broadcast_perf", "Broadcast", "broadcast"}; }
  Sizing sizing(std::size_t requested, std::size_t e, int, const OpParams&) const override {
    const std::size_t c = requested / e;
    return {c, c * e, c * e, c * e};
  }
  // 1: every rank receives the whole buffer once (nccl-tests doc/PERFORMANCE.md, Broadcast).
  double bus_bw_factor(int) const override { return 1.0; }
  DataLayout layout(const Sizing& s, int rank, int, bool in_place, const OpParams& p) const override {
    DataLayout d;
    if (rank == p.root) {
      d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count, rank, 0});
    }
    d.checks.push_back({0, s.count, false, p.root, 0});
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    const void* send = a.in_place ? recv : a.buffers.send(local);
    b.broadcast(local, send, recv, a.sizing.count, a.dtype, a.params.root);
  }
  void validate(int n, const OpParams& p) const override { validate_root(name(), n, p); }
};

PB_REGISTER_OP(Broadcast);

}  // namespace
}  // namespace pipebench
