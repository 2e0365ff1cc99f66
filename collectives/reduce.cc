// SPDX-License-Identifier: Apache-2.0
// reduce: the root ends with the reduction of all inputs.
#include "collectives/registry.h"
#include "collectives/root_check.h"

namespace pipebench {
namespace {

class Reduce final : public Op {
 public:
  Reduce() { traits_.reduces = traits_.supports_in_place = traits_.has_root = true; }
  std::string_view name() const override { return "reduce"; }
  OpAliases aliases() const override { return {"ncclReduce", "reduce_perf", "Reduce", "reduce"}; }
  // count = size / element (nccl-tests ReduceGetCollByteCount).
  Sizing sizing(std::size_t requested, std::size_t e, int, const OpParams&) const override {
    const std::size_t c = requested / e;
    return {c, c * e, c * e, c * e};
  }
  // 1: the root's link carries the whole buffer once (nccl-tests doc/PERFORMANCE.md, Reduce).
  double bus_bw_factor(int) const override { return 1.0; }
  DataLayout layout(const Sizing& s, int rank, int, bool in_place, const OpParams& p) const override {
    DataLayout d;
    d.fills.push_back({in_place ? BufferRole::kRecv : BufferRole::kSend, 0, s.count, rank, 0});
    if (rank == p.root) d.checks.push_back({0, s.count, true, 0, 0});
    return d;
  }
  void issue(Backend& b, int local, const CallArgs& a) const override {
    void* recv = a.buffers.recv(local);
    const void* send = a.in_place ? recv : a.buffers.send(local);
    b.reduce(local, send, recv, a.sizing.count, a.dtype, a.redop, a.params.root);
  }
  void validate(int n, const OpParams& p) const override { validate_root(name(), n, p); }
};

PB_REGISTER_OP(Reduce);

}  // namespace
}  // namespace pipebench
